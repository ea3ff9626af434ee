/**
 * Flowchart runtime tables (ids 700–799): flowcharts and their saved graphs, runs and node runs,
 * `node_artifacts` with retention columns, and the plans and milestones plan/milestone nodes write.
 */
import type { Migration } from '../../store/index.ts';

export const flowMigrations: Migration[] = [
  {
    id: 700,
    name: 'flow: flowcharts, graphs, runs, node runs, node_artifacts, plans, milestones',
    up: (d) => [
      `CREATE TABLE flowcharts (
         flowchart_id TEXT PRIMARY KEY,
         name TEXT NOT NULL,
         description TEXT NOT NULL DEFAULT '',
         graph_revision ${d.bigint} NOT NULL DEFAULT 0,
         created_at TEXT NOT NULL,
         updated_at TEXT NOT NULL
       )`,
      // config_json is TEXT on purpose: legacy rows may hold anything, and startup migration must
      // be able to see (and refuse) a malformed one.
      `CREATE TABLE flowchart_nodes (
         flowchart_id TEXT NOT NULL,
         flowchart_node_id TEXT NOT NULL,
         node_type TEXT NOT NULL,
         title TEXT NOT NULL DEFAULT '',
         config_json TEXT NOT NULL,
         position_json TEXT,
         ord ${d.bigint} NOT NULL,
         PRIMARY KEY (flowchart_id, flowchart_node_id)
       )`,
      `CREATE TABLE flowchart_edges (
         flowchart_id TEXT NOT NULL,
         edge_id TEXT NOT NULL,
         source_node_id TEXT NOT NULL,
         target_node_id TEXT NOT NULL,
         edge_mode TEXT NOT NULL,
         condition_text TEXT,
         route_key TEXT,
         condition_json TEXT,
         ord ${d.bigint} NOT NULL,
         PRIMARY KEY (flowchart_id, edge_id)
       )`,
      `CREATE TABLE flowchart_runs (
         flowchart_run_id TEXT PRIMARY KEY,
         flowchart_id TEXT NOT NULL,
         input_json TEXT NOT NULL,
         request_id TEXT NOT NULL,
         correlation_id TEXT,
         created_at TEXT NOT NULL
       )`,
      'CREATE INDEX flowchart_runs_by_flowchart ON flowchart_runs (flowchart_id, created_at)',
      `CREATE TABLE flowchart_node_runs (
         node_run_id TEXT PRIMARY KEY,
         flowchart_run_id TEXT NOT NULL,
         flowchart_id TEXT NOT NULL,
         flowchart_node_id TEXT NOT NULL,
         flowchart_node_type TEXT NOT NULL,
         execution_index ${d.bigint} NOT NULL,
         status TEXT NOT NULL,
         output_state TEXT,
         routing_state TEXT,
         error TEXT,
         started_at TEXT NOT NULL,
         finished_at TEXT,
         duration_ms ${d.bigint}
       )`,
      'CREATE INDEX flowchart_node_runs_by_run ON flowchart_node_runs (flowchart_run_id, execution_index)',
      `CREATE TABLE node_artifacts (
         artifact_id ${d.autoId},
         flowchart_id TEXT NOT NULL,
         flowchart_run_id TEXT NOT NULL,
         flowchart_node_id TEXT NOT NULL,
         flowchart_node_type TEXT NOT NULL,
         node_run_id TEXT NOT NULL,
         artifact_type TEXT NOT NULL,
         plan_id ${d.bigint},
         memory_id ${d.bigint},
         milestone_id ${d.bigint},
         payload TEXT NOT NULL,
         request_id TEXT NOT NULL,
         correlation_id TEXT,
         retention_mode TEXT NOT NULL,
         created_at_ms ${d.bigint} NOT NULL,
         expires_at_ms ${d.bigint},
         UNIQUE (node_run_id, artifact_type)
       )`,
      'CREATE INDEX node_artifacts_by_node ON node_artifacts (flowchart_id, flowchart_node_id, artifact_id)',
      // Type-scoped node lists (decision-artifacts) count and page without touching the table.
      'CREATE INDEX node_artifacts_by_node_type ON node_artifacts (flowchart_id, flowchart_node_id, artifact_type, artifact_id)',
      'CREATE INDEX node_artifacts_by_plan ON node_artifacts (plan_id, artifact_id)',
      'CREATE INDEX node_artifacts_by_memory ON node_artifacts (memory_id, artifact_id)',
      'CREATE INDEX node_artifacts_by_milestone ON node_artifacts (milestone_id, artifact_id)',
      'CREATE INDEX node_artifacts_expiry ON node_artifacts (expires_at_ms)',
      `CREATE TABLE flow_plans (
         plan_id ${d.autoId},
         flowchart_id TEXT NOT NULL,
         plan_key TEXT NOT NULL,
         plan_json TEXT NOT NULL,
         next_seq ${d.bigint} NOT NULL DEFAULT 1,
         created_at TEXT NOT NULL,
         updated_at TEXT NOT NULL,
         UNIQUE (flowchart_id, plan_key)
       )`,
      `CREATE TABLE flow_milestones (
         milestone_id ${d.autoId},
         flowchart_id TEXT NOT NULL,
         milestone_key TEXT NOT NULL,
         title TEXT NOT NULL,
         description TEXT NOT NULL DEFAULT '',
         status TEXT NOT NULL,
         completed_at TEXT,
         created_at TEXT NOT NULL,
         updated_at TEXT NOT NULL,
         UNIQUE (flowchart_id, milestone_key)
       )`,
    ],
  },
  {
    id: 701,
    name: 'flow: flowcharts remember the content hash of the file they were imported from',
    // One flowchart per imported content: `flow run <file>` runs it again instead of importing a
    // duplicate. Saving a graph clears it (the flowchart no longer is that content).
    up: () => [
      'ALTER TABLE flowcharts ADD COLUMN import_hash TEXT',
      'CREATE UNIQUE INDEX flowcharts_by_import_hash ON flowcharts (import_hash)',
    ],
  },
  {
    id: 702,
    name: 'flow: node_artifacts indexes its plan, memory, milestone and expiry only where they are set',
    // Most artifacts have none of them (at most one is set): a NULL key was still an entry, and a leaf
    // page written, in each of the four indexes on every insert. Every read of them compares the column
    // (`plan_id = ?`, `expires_at_ms <= ?`), which implies it is not NULL, so the partial index serves it.
    up: () => [
      'DROP INDEX node_artifacts_by_plan',
      'CREATE INDEX node_artifacts_by_plan ON node_artifacts (plan_id, artifact_id) WHERE plan_id IS NOT NULL',
      'DROP INDEX node_artifacts_by_memory',
      'CREATE INDEX node_artifacts_by_memory ON node_artifacts (memory_id, artifact_id) WHERE memory_id IS NOT NULL',
      'DROP INDEX node_artifacts_by_milestone',
      'CREATE INDEX node_artifacts_by_milestone ON node_artifacts (milestone_id, artifact_id) WHERE milestone_id IS NOT NULL',
      'DROP INDEX node_artifacts_expiry',
      'CREATE INDEX node_artifacts_expiry ON node_artifacts (expires_at_ms) WHERE expires_at_ms IS NOT NULL',
    ],
  },
];
