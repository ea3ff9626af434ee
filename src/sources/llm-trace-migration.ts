/**
 * Migration 345: the LLM trace moves onto its invocation row. Each traced call wrote two rows and
 * updated both: two table b-trees and two primary-key indexes per transaction, three of the
 * eleven pages a call wrote on SQLite. The trace's own columns become `llm_*` columns of
 * `source_invocations`, and `llm_calls` becomes a view with the same columns over them.
 */
import type { Dialect, Migration } from '../store/index.ts';

/** The view's column (the old table's) → the invocation row's column holding it. */
const OWN_COLUMNS = (d: Dialect): Array<[string, string]> => [
  ['endpoint_name', 'TEXT'],
  ['base_url', 'TEXT'],
  ['model', 'TEXT'],
  ['schema_delivery', 'TEXT'],
  ['request_json', 'TEXT'],
  ['http_status', d.bigint],
  ['response_headers', 'TEXT'],
  ['raw_text', 'TEXT'],
  ['normalized_text', 'TEXT'],
  ['normalized_is_raw', 'INTEGER'],
  ['finish_reason', 'TEXT'],
  ['prompt_tokens', d.bigint],
  ['completion_tokens', d.bigint],
  ['total_tokens', d.bigint],
  ['usage_json', 'TEXT'],
  ['chunk_count', d.bigint],
  ['chunks_json', 'TEXT'],
  ['artifacts_json', 'TEXT'],
  ['first_chunk_at', d.bigint],
];

/**
 * Columns the trace shares with its invocation (the same values were written to both rows):
 * links, provenance, status, failure and times.
 */
const SHARED_COLUMNS = [
  'run_id',
  'attempt_id',
  'workflow_hash',
  'workflow_node_id',
  'workflow_subject_entity_id',
  'logical_generation_attempt',
  'tool_loop_round',
  'model_output_kind',
];

/** `llm_calls` as the old table read, column for column. */
const view = (d: Dialect) => {
  const own = new Map(OWN_COLUMNS(d).map(([c]) => [c, `llm_${c} AS ${c}`]));
  const columns = [
    'llm_call_id',
    'source_invocation_id',
    ...SHARED_COLUMNS,
    ...['endpoint_name', 'base_url', 'model', 'schema_delivery', 'request_json'].map((c) => own.get(c)),
    'status',
    'failure_class',
    'failure_message',
    ...['http_status', 'response_headers', 'raw_text', 'normalized_text', 'finish_reason'].map((c) =>
      own.get(c),
    ),
    ...['prompt_tokens', 'completion_tokens', 'total_tokens', 'usage_json', 'chunk_count'].map((c) =>
      own.get(c),
    ),
    ...['chunks_json', 'artifacts_json'].map((c) => own.get(c)),
    'started_at',
    own.get('first_chunk_at'),
    'ended_at',
    'duration_ms',
    own.get('normalized_is_raw'),
  ];
  return `CREATE VIEW llm_calls AS SELECT ${columns.join(', ')} FROM source_invocations WHERE llm_call_id IS NOT NULL`;
};

export const llmTraceOnInvocationMigration: Migration = {
  id: 345,
  name: 'llm_calls_on_invocations',
  up: (d) => [
    ...OWN_COLUMNS(d).map(([c, type]) => `ALTER TABLE source_invocations ADD COLUMN llm_${c} ${type}`),
    // Every call's trace moves onto its invocation row as it was stored; the row's own status,
    // failure and times (which the trace repeated) are kept.
    `UPDATE source_invocations SET llm_call_id = l.llm_call_id,
       ${OWN_COLUMNS(d)
         .map(([c]) => `llm_${c} = l.${c}`)
         .join(', ')}
     FROM llm_calls l WHERE l.source_invocation_id = source_invocations.source_invocation_id`,
    'DROP TABLE llm_calls',
    view(d),
    // A call made from now on has its invocation's id, found by the primary key; a call recorded
    // before has an id of its own, found through this index, which no new row enters.
    `CREATE INDEX source_invocations_llm_call_idx ON source_invocations(llm_call_id)
       WHERE llm_call_id <> source_invocation_id`,
  ],
};
