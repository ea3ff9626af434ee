/**
 * Tables owned by the world runtime (ids 510–599): the content-addressed scenario components
 * (workflows, profiles, environments, entities, scenarios) with their reference edges, and the
 * worlds: turns, per-turn versions of what changed, attempts, accepted patches and audit events;
 * and the WorldPatch schema, stored once in `json_schemas`.
 */
import type { Migration } from '../../store/index.ts';
import { WORLD_PATCH_SCHEMA_HASH, WORLD_PATCH_SCHEMA_TEXT } from './world-patch-schema.ts';

const components: Migration = {
  id: 510,
  name: 'world_components',
  up: (d) => [
    ...['cognition_workflows', 'cognition_profiles', 'environments', 'entities', 'scenarios'].map(
      (t) => `CREATE TABLE ${t} (
         hash TEXT PRIMARY KEY,
         content TEXT NOT NULL,
         label TEXT,
         created_at ${d.bigint} NOT NULL
       )`,
    ),
    // One edge per reference a component makes (a workflow to its sources and schemas, a profile
    // to its workflow, a scenario to everything): list_uses_of reads it backwards.
    `CREATE TABLE component_refs (
       from_hash TEXT NOT NULL,
       from_kind TEXT NOT NULL,
       to_hash TEXT NOT NULL,
       to_kind TEXT NOT NULL,
       PRIMARY KEY (to_hash, from_hash)
     )`,
  ],
};

// A world is a scenario plus the turns committed on it. A turn stores only what changed
// (versions keyed by the turn that wrote them); a fork points at its parent and fork turn.
const worlds: Migration = {
  id: 511,
  name: 'worlds',
  up: (d) => [
    `CREATE TABLE worlds (
       world_slug TEXT PRIMARY KEY,
       scenario_hash TEXT NOT NULL REFERENCES scenarios(hash),
       parent_world_slug TEXT REFERENCES worlds(world_slug),
       fork_turn ${d.bigint},
       head_turn ${d.bigint} NOT NULL,
       created_at ${d.bigint} NOT NULL
     )`,
    `CREATE TABLE world_turns (
       world_slug TEXT NOT NULL REFERENCES worlds(world_slug),
       turn ${d.bigint} NOT NULL,
       attempt_id TEXT,
       simulation_time TEXT,
       patch_count ${d.bigint} NOT NULL,
       committed_at ${d.bigint} NOT NULL,
       PRIMARY KEY (world_slug, turn)
     )`,
    `CREATE TABLE world_entity_versions (
       world_slug TEXT NOT NULL,
       entity_id TEXT NOT NULL,
       turn ${d.bigint} NOT NULL,
       kind TEXT NOT NULL,
       environment_label TEXT NOT NULL,
       state TEXT NOT NULL,
       memory_append TEXT,
       PRIMARY KEY (world_slug, turn, entity_id)
     )`,
    `CREATE TABLE world_environment_versions (
       world_slug TEXT NOT NULL,
       environment_label TEXT NOT NULL,
       turn ${d.bigint} NOT NULL,
       content TEXT NOT NULL,
       PRIMARY KEY (world_slug, turn, environment_label)
     )`,
  ],
};

const attempts: Migration = {
  id: 512,
  name: 'world_attempts',
  up: (d) => [
    `CREATE TABLE world_attempts (
       attempt_id TEXT PRIMARY KEY,
       world_slug TEXT NOT NULL REFERENCES worlds(world_slug),
       attempted_turn ${d.bigint} NOT NULL CHECK (attempted_turn >= 1),
       run_id TEXT NOT NULL,
       scenario_hash TEXT NOT NULL,
       status TEXT NOT NULL CHECK (status IN ('running', 'committed', 'failed', 'interrupted')),
       failure_json TEXT,
       source_invocation_count ${d.bigint} NOT NULL DEFAULT 0,
       last_source_invocation_id TEXT,
       source_trace_summary TEXT NOT NULL DEFAULT '{}',
       started_at ${d.bigint} NOT NULL,
       ended_at ${d.bigint}
     )`,
    // At most one running attempt per world, enforced by the store on both backends.
    `CREATE UNIQUE INDEX world_attempts_running_idx ON world_attempts(world_slug) WHERE status = 'running'`,
    'CREATE INDEX world_attempts_world_idx ON world_attempts(world_slug, started_at)',
    `CREATE TABLE world_patches (
       attempt_id TEXT NOT NULL REFERENCES world_attempts(attempt_id),
       patch_seq ${d.bigint} NOT NULL CHECK (patch_seq >= 1),
       world_slug TEXT NOT NULL,
       turn ${d.bigint} NOT NULL,
       subject_entity_id TEXT NOT NULL,
       workflow_hash TEXT NOT NULL,
       workflow_node_id TEXT NOT NULL,
       source_invocation_id TEXT,
       narration TEXT NOT NULL,
       effects_json TEXT NOT NULL,
       transitions_json TEXT NOT NULL,
       PRIMARY KEY (attempt_id, patch_seq)
     )`,
    `CREATE TABLE world_audit_events (
       event_id ${d.autoId},
       world_slug TEXT NOT NULL,
       turn ${d.bigint} NOT NULL,
       attempt_id TEXT NOT NULL,
       event_type TEXT NOT NULL,
       patch_seq ${d.bigint},
       workflow_subject_entity_id TEXT,
       source_invocation_id TEXT,
       cognition_workflow_hash TEXT,
       response_source_hash TEXT,
       workflow_node_id TEXT,
       touched_json TEXT NOT NULL DEFAULT '[]',
       data_json TEXT NOT NULL DEFAULT '{}',
       created_at ${d.bigint} NOT NULL
     )`,
    'CREATE INDEX world_audit_events_world_idx ON world_audit_events(world_slug, turn)',
  ],
};

// Whole-world snapshots (snapshots.ts): one immutable blob per snapshot turn, and on the world the
// change bytes written since its newest snapshot and that snapshot's size (the snapshot policy).
const snapshots: Migration = {
  id: 513,
  name: 'world_snapshots',
  up: (d) => [
    `CREATE TABLE world_snapshots (
       world_slug TEXT NOT NULL,
       turn ${d.bigint} NOT NULL,
       snapshot_id TEXT NOT NULL UNIQUE,
       body TEXT NOT NULL,
       bytes ${d.bigint} NOT NULL,
       PRIMARY KEY (world_slug, turn)
     )`,
    `ALTER TABLE worlds ADD COLUMN change_bytes ${d.bigint} NOT NULL DEFAULT 0`,
    `ALTER TABLE worlds ADD COLUMN snapshot_bytes ${d.bigint} NOT NULL DEFAULT 0`,
  ],
};

// Snapshots stored as the text get_world answers are spliced from, with the offsets of its members
// (snapshot-format.ts); rows of the first format keep their JSON body and leave these NULL.
const snapshotText: Migration = {
  id: 514,
  name: 'world_snapshot_text',
  up: (d) => [
    'ALTER TABLE world_snapshots ADD COLUMN entities_text TEXT',
    `ALTER TABLE world_snapshots ADD COLUMN entities_index ${d.blob}`,
  ],
};

// The WorldPatch schema every workflow's final_schema_ref names, stored in every store so a client
// that authors only over MCP or REST can get it by hash and find it listed (label "WorldPatch").
const worldPatchSchema: Migration = {
  id: 515,
  name: 'world_patch_schema',
  up: () => [
    `INSERT INTO json_schemas (hash, content, created_at)
     VALUES ('${WORLD_PATCH_SCHEMA_HASH}', '${WORLD_PATCH_SCHEMA_TEXT.replaceAll("'", "''")}', 0)
     ON CONFLICT (hash) DO NOTHING`,
  ],
};

export const worldMigrations: readonly Migration[] = [
  components,
  worlds,
  attempts,
  snapshots,
  snapshotText,
  worldPatchSchema,
];
