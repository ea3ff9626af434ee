/**
 * Engine tables (ids 400–499): content-addressed graphs, runs with leases, the delta journal,
 * periodic snapshots, contracts and artifacts.
 */
import type { Migration } from '../store/index.ts';
import { eventMigrations } from './events/migrations.ts';

const tables: Migration[] = [
  {
    id: 400,
    name: 'engine: graphs, runs, journal, snapshots, contracts, artifacts',
    up: (d) => [
      `CREATE TABLE engine_graphs (
         graph_hash TEXT PRIMARY KEY,
         body TEXT NOT NULL,
         created_at ${d.bigint} NOT NULL
       )`,
      `CREATE TABLE engine_runs (
         run_pk ${d.autoId},
         run_id TEXT NOT NULL UNIQUE,
         graph_hash TEXT NOT NULL REFERENCES engine_graphs(graph_hash),
         status TEXT NOT NULL,
         lease_owner TEXT,
         lease_expires_at ${d.bigint} NOT NULL DEFAULT 0,
         error TEXT,
         created_at ${d.bigint} NOT NULL,
         updated_at ${d.bigint} NOT NULL
       )`,
      'CREATE INDEX engine_runs_claim ON engine_runs (status, lease_expires_at)',
      // The journal is the hot path. One integer key per row, `jid = run_pk * 2^24 + seq` (see
      // journal/key.ts), makes the row its own index: no second b-tree, and a run is one key range.
      `CREATE TABLE engine_journal (
         jid ${d.bigint} PRIMARY KEY,
         body TEXT NOT NULL
       )`,
      `CREATE TABLE engine_snapshots (
         run_pk ${d.bigint} NOT NULL,
         seq ${d.bigint} NOT NULL,
         body TEXT NOT NULL,
         PRIMARY KEY (run_pk, seq)
       )`,
      `CREATE TABLE engine_contracts (
         contract_id TEXT PRIMARY KEY,
         run_pk ${d.bigint} NOT NULL,
         node_id TEXT NOT NULL,
         action_type TEXT NOT NULL,
         status TEXT NOT NULL,
         payload TEXT NOT NULL,
         result TEXT,
         error_message TEXT,
         observation TEXT,
         transitions TEXT NOT NULL,
         created_at ${d.bigint} NOT NULL,
         updated_at ${d.bigint} NOT NULL
       )`,
      'CREATE INDEX engine_contracts_run ON engine_contracts (run_pk, created_at)',
      `CREATE TABLE engine_artifacts (
         artifact_id TEXT PRIMARY KEY,
         run_pk ${d.bigint} NOT NULL,
         node_id TEXT NOT NULL,
         seq ${d.bigint} NOT NULL,
         artifact_type TEXT NOT NULL,
         payload TEXT NOT NULL,
         created_at ${d.bigint} NOT NULL
       )`,
      'CREATE INDEX engine_artifacts_run ON engine_artifacts (run_pk, seq)',
    ],
  },
  {
    // A failed contract's typed failure ({ code, message, retryable, details } as JSON), beside
    // the seed's `error_message` string, so callers never parse that string.
    id: 410,
    name: 'engine: contract failures as data',
    up: () => ['ALTER TABLE engine_contracts ADD COLUMN error TEXT'],
  },
];

/**
 * Claims scoped by node types (ids 430–439): the node types each stored graph uses (`terminal`
 * included), so `claimNext` takes only runs whose every node type the claiming process registered.
 * Graphs stored before this migration are filled in by the first `claimNext` of a process.
 */
const claimScope: Migration[] = [
  {
    id: 430,
    name: 'engine: node types per graph, for claims scoped to registered types',
    up: () => [
      `CREATE TABLE engine_graph_types (
         graph_hash TEXT NOT NULL REFERENCES engine_graphs(graph_hash),
         node_type TEXT NOT NULL,
         PRIMARY KEY (graph_hash, node_type)
       )`,
    ],
  },
];

/**
 * The processes that execute runs (`noema worker`, plain `noema serve`): one row each, heartbeated,
 * removed when it stops; a row whose heartbeat is older than its lease is a process that died.
 */
const workerRegistry: Migration[] = [
  {
    id: 440,
    name: 'engine: the registry of processes that execute runs',
    up: (d) => [
      `CREATE TABLE engine_workers (
         worker_id TEXT PRIMARY KEY,
         kind TEXT NOT NULL,
         host TEXT NOT NULL,
         pid ${d.bigint} NOT NULL,
         started_at ${d.bigint} NOT NULL,
         heartbeat_at ${d.bigint} NOT NULL,
         lease_ms ${d.bigint} NOT NULL,
         concurrency ${d.bigint} NOT NULL,
         runs_in_flight ${d.bigint} NOT NULL
       )`,
    ],
  },
  {
    id: 441,
    name: 'engine: who executed each attempt of a run (each claim: worker_id, host, pid)',
    up: (d) => [
      `CREATE TABLE engine_run_attempts (
         run_pk ${d.bigint} NOT NULL REFERENCES engine_runs(run_pk),
         attempt ${d.bigint} NOT NULL,
         worker_id TEXT NOT NULL,
         host TEXT NOT NULL,
         pid ${d.bigint} NOT NULL,
         claimed_at ${d.bigint} NOT NULL,
         PRIMARY KEY (run_pk, attempt)
       )`,
    ],
  },
];

/**
 * Every engine migration in id order: the tables, the event pipeline's (420–429), claim scoping
 * (430–439), the worker registry (440–449).
 */
export const engineMigrations: Migration[] = [
  ...tables,
  ...eventMigrations,
  ...claimScope,
  ...workerRegistry,
];
