/**
 * Migration 344: the `status` CHECK of `source_invocations` and `llm_calls` written as equalities.
 * SQLite evaluates a CHECK `IN` list of more than two constants through a temporary b-tree that
 * every INSERT and every status UPDATE opens, fills and closes again: four of them per traced
 * call, about a tenth of the lifecycle's cost. The equalities accept exactly the same rows.
 */
import type { Dialect, Migration } from '../store/index.ts';

const STATUS_CHECK =
  "CHECK (status = 'running' OR status = 'succeeded' OR status = 'failed' OR status = 'interrupted')";

/** The tables as migrations 302, 303 and 343 left them, the status CHECK aside. */
const invocationsTable = (d: Dialect) => `CREATE TABLE source_invocations (
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
  status TEXT NOT NULL ${STATUS_CHECK},
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
)`;

const INVOCATION_COLUMNS = `source_invocation_id, run_id, attempt_id, contract_id, world_slug, attempted_turn,
  invocation_seq, workflow_hash, workflow_node_id, workflow_subject_entity_id, source_hash, interface_name,
  invocation_kind, ambient_source_id, tool_name, parent_source_invocation_id, input_schema_hash,
  output_schema_hash, llm_call_id, logical_generation_attempt, tool_loop_round, model_output_kind, status,
  failure_class, failure_message, started_at, ended_at, duration_ms, request_json, response_json,
  response_text, response_headers, http_status, validation_status, metadata, owner_process_id`;

// The indexes migrations 302, 341 and 342 left on it.
const INVOCATION_INDEXES = [
  `CREATE UNIQUE INDEX source_invocations_attempt_seq_idx ON source_invocations(attempt_id, invocation_seq)
     WHERE attempt_id IS NOT NULL`,
  `CREATE UNIQUE INDEX source_invocations_run_seq_idx ON source_invocations(run_id, invocation_seq)
     WHERE attempt_id IS NULL AND run_id IS NOT NULL`,
  `CREATE INDEX source_invocations_world_time_idx ON source_invocations(world_slug, started_at)
     WHERE world_slug IS NOT NULL`,
  `CREATE INDEX source_invocations_running_idx ON source_invocations(owner_process_id)
     WHERE status = 'running'`,
];

const llmCallsTable = (d: Dialect) => `CREATE TABLE llm_calls (
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
  status TEXT NOT NULL ${STATUS_CHECK},
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
  duration_ms ${d.bigint},
  normalized_is_raw INTEGER NOT NULL DEFAULT 0
)`;

const LLM_CALL_COLUMNS = `llm_call_id, source_invocation_id, run_id, attempt_id, workflow_hash, workflow_node_id,
  workflow_subject_entity_id, logical_generation_attempt, tool_loop_round, model_output_kind, endpoint_name,
  base_url, model, schema_delivery, request_json, status, failure_class, failure_message, http_status,
  response_headers, raw_text, normalized_text, finish_reason, prompt_tokens, completion_tokens, total_tokens,
  usage_json, chunk_count, chunks_json, artifacts_json, started_at, first_chunk_at, ended_at, duration_ms,
  normalized_is_raw`;

/**
 * Where constraints cannot be altered, both tables are rebuilt together: renaming the invocations
 * table repoints the foreign keys that name it (the old `llm_calls`' and its own) at the renamed
 * copy, so the old tables drop without touching the new ones, whose keys are checked as rows copy in.
 */
function rebuild(d: Dialect): string[] {
  return [
    'ALTER TABLE llm_calls RENAME TO llm_calls_before_344',
    'ALTER TABLE source_invocations RENAME TO source_invocations_before_344',
    invocationsTable(d),
    llmCallsTable(d),
    `INSERT INTO source_invocations (${INVOCATION_COLUMNS})
       SELECT ${INVOCATION_COLUMNS} FROM source_invocations_before_344`,
    `INSERT INTO llm_calls (${LLM_CALL_COLUMNS}) SELECT ${LLM_CALL_COLUMNS} FROM llm_calls_before_344`,
    'DROP TABLE llm_calls_before_344',
    'DROP TABLE source_invocations_before_344',
    ...INVOCATION_INDEXES,
  ];
}

// PostgreSQL names a column's CHECK `<table>_<column>_check`.
const alter = (table: string) => [
  `ALTER TABLE ${table} DROP CONSTRAINT ${table}_status_check`,
  `ALTER TABLE ${table} ADD CONSTRAINT ${table}_status_check ${STATUS_CHECK}`,
];

export const statusCheckMigration: Migration = {
  id: 344,
  name: 'trace_status_check_equalities',
  up: (d) => (d.alterConstraints ? [...alter('source_invocations'), ...alter('llm_calls')] : rebuild(d)),
};
