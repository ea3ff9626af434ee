/**
 * Tables owned by sources (ids 300–399): content-addressed source definitions and schemas,
 * durable source invocations, the rich LLM call trace, and the process leases recovery reads.
 */
import type { Migration } from '../store/index.ts';

const documents: Migration = {
  id: 300,
  name: 'sources_documents',
  up: (d) => [
    `CREATE TABLE json_schemas (
       hash TEXT PRIMARY KEY,
       content TEXT NOT NULL,
       created_at ${d.bigint} NOT NULL
     )`,
    `CREATE TABLE response_sources (
       hash TEXT PRIMARY KEY,
       content TEXT NOT NULL,
       interface_name TEXT NOT NULL,
       label TEXT,
       created_at ${d.bigint} NOT NULL
     )`,
    `CREATE TABLE mcp_servers (
       hash TEXT PRIMARY KEY,
       content TEXT NOT NULL,
       created_at ${d.bigint} NOT NULL
     )`,
  ],
};

// One row per process that has sent source calls; recovery treats rows owned by a dead
// process (pid gone on this host, or heartbeat older than its lease) as interrupted.
const processes: Migration = {
  id: 301,
  name: 'source_processes',
  up: (d) => [
    `CREATE TABLE source_processes (
       process_id TEXT PRIMARY KEY,
       hostname TEXT NOT NULL,
       pid ${d.bigint} NOT NULL,
       started_at ${d.bigint} NOT NULL,
       heartbeat_at ${d.bigint} NOT NULL,
       lease_ms ${d.bigint} NOT NULL
     )`,
  ],
};

// Linkage is generalized: worlds fill attempt_id/world_slug/attempted_turn, the engine
// run_id/contract_id, every runtime the workflow_* provenance. No foreign keys to those
// tables: sources sits below the engine and runtimes.
const invocations: Migration = {
  id: 302,
  name: 'source_invocations',
  up: (d) => [
    `CREATE TABLE source_invocations (
       source_invocation_id TEXT PRIMARY KEY,
       run_id TEXT,
       attempt_id TEXT,
       contract_id TEXT,
       world_slug TEXT,
       attempted_turn ${d.bigint} CHECK (attempted_turn IS NULL OR attempted_turn >= 1),
       invocation_seq ${d.bigint} NOT NULL CHECK (invocation_seq >= 1),
       workflow_hash TEXT,
       workflow_node_id TEXT,
       workflow_subject_entity_id TEXT,
       source_hash TEXT NOT NULL REFERENCES response_sources(hash),
       interface_name TEXT NOT NULL,
       invocation_kind TEXT NOT NULL,
       ambient_source_id TEXT,
       tool_name TEXT,
       parent_source_invocation_id TEXT REFERENCES source_invocations(source_invocation_id),
       input_schema_hash TEXT REFERENCES json_schemas(hash),
       output_schema_hash TEXT REFERENCES json_schemas(hash),
       llm_call_id TEXT,
       logical_generation_attempt ${d.bigint} CHECK (logical_generation_attempt IS NULL OR logical_generation_attempt >= 1),
       tool_loop_round ${d.bigint} CHECK (tool_loop_round IS NULL OR tool_loop_round >= 0),
       model_output_kind TEXT,
       status TEXT NOT NULL CHECK (status IN ('running', 'succeeded', 'failed', 'interrupted')),
       failure_class TEXT,
       failure_message TEXT,
       started_at ${d.bigint} NOT NULL,
       ended_at ${d.bigint},
       duration_ms ${d.bigint} CHECK (duration_ms IS NULL OR duration_ms >= 0),
       request_json TEXT NOT NULL,
       response_json TEXT,
       response_text TEXT,
       response_headers TEXT NOT NULL DEFAULT '{}',
       http_status ${d.bigint},
       validation_status TEXT,
       metadata TEXT NOT NULL DEFAULT '{}',
       owner_process_id TEXT NOT NULL
     )`,
    // Partial indexes: a row pays only for the linkage it has, so a standalone call writes
    // few index entries and a world call writes the ones its reads need.
    `CREATE UNIQUE INDEX source_invocations_attempt_seq_idx ON source_invocations(attempt_id, invocation_seq)
       WHERE attempt_id IS NOT NULL`,
    `CREATE UNIQUE INDEX source_invocations_run_seq_idx ON source_invocations(run_id, invocation_seq)
       WHERE attempt_id IS NULL AND run_id IS NOT NULL`,
    `CREATE INDEX source_invocations_world_time_idx ON source_invocations(world_slug, started_at)
       WHERE world_slug IS NOT NULL`,
    `CREATE INDEX source_invocations_workflow_idx ON source_invocations(workflow_hash)
       WHERE workflow_hash IS NOT NULL`,
    'CREATE INDEX source_invocations_source_idx ON source_invocations(source_hash)',
    `CREATE INDEX source_invocations_parent_idx ON source_invocations(parent_source_invocation_id)
       WHERE parent_source_invocation_id IS NOT NULL`,
    `CREATE INDEX source_invocations_subject_idx ON source_invocations(world_slug, workflow_subject_entity_id)
       WHERE workflow_subject_entity_id IS NOT NULL`,
    // Recovery reads only running rows; the entry disappears when the row finishes.
    `CREATE INDEX source_invocations_running_idx ON source_invocations(owner_process_id)
       WHERE status = 'running'`,
  ],
};

// The rich LLM trace beside the generic invocation (seed 004 D15): one llm_calls row holding
// every streamed chunk in order (`chunks_json`, [offset_ms, data] pairs) and the artifacts
// (`artifacts_json`: parsed outputs, parse errors, validation errors). JSON columns rather than
// a row per chunk keep the finish to one write: the durable lifecycle must stay cheap per call.
// The invocation points at its call (`llm_call_id`), so the reverse lookup needs no index.
// The request messages are read from the wire body (`request_json.messages`), not stored twice.
const llmCalls: Migration = {
  id: 303,
  name: 'llm_calls',
  up: (d) => [
    `CREATE TABLE llm_calls (
       llm_call_id TEXT PRIMARY KEY,
       source_invocation_id TEXT NOT NULL REFERENCES source_invocations(source_invocation_id),
       run_id TEXT,
       attempt_id TEXT,
       workflow_hash TEXT,
       workflow_node_id TEXT,
       workflow_subject_entity_id TEXT,
       logical_generation_attempt ${d.bigint},
       tool_loop_round ${d.bigint},
       model_output_kind TEXT,
       endpoint_name TEXT NOT NULL,
       base_url TEXT NOT NULL,
       model TEXT NOT NULL,
       schema_delivery TEXT NOT NULL,
       request_json TEXT NOT NULL,
       status TEXT NOT NULL CHECK (status IN ('running', 'succeeded', 'failed', 'interrupted')),
       failure_class TEXT,
       failure_message TEXT,
       http_status ${d.bigint},
       response_headers TEXT NOT NULL DEFAULT '{}',
       raw_text TEXT,
       normalized_text TEXT,
       finish_reason TEXT,
       prompt_tokens ${d.bigint},
       completion_tokens ${d.bigint},
       total_tokens ${d.bigint},
       usage_json TEXT,
       chunk_count ${d.bigint} NOT NULL DEFAULT 0,
       chunks_json TEXT,
       artifacts_json TEXT NOT NULL DEFAULT '[]',
       started_at ${d.bigint} NOT NULL,
       first_chunk_at ${d.bigint},
       ended_at ${d.bigint},
       duration_ms ${d.bigint}
     )`,
  ],
};

export const sourcesMigrations: readonly Migration[] = [documents, processes, invocations, llmCalls];
