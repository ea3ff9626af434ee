/**
 * Sources migrations 340–369 (the trace's write path): chunk batches persisted while an LLM
 * call streams, fewer indexes on the hot `source_invocations` row, the LLM trace storing
 * the output (and the request messages) once, status checks SQLite evaluates cheaply, and the
 * LLM trace on its invocation row.
 */
import type { Migration } from '../store/index.ts';
import { llmTraceOnInvocationMigration } from './llm-trace-migration.ts';
import { statusCheckMigration } from './status-check-migration.ts';

// Streamed chunks written while the call runs, in batches (`[offset_ms, data]` pairs from
// `first_seq` on), so a killed process leaves what had arrived. The finish writes
// `llm_calls.chunks_json` whole and deletes the call's batches; a call that never finished
// keeps them, and readers use them when `chunks_json` is NULL.
const chunkBatches: Migration = {
  id: 340,
  name: 'llm_call_chunks',
  up: (d) => [
    `CREATE TABLE llm_call_chunks (
       llm_call_id TEXT NOT NULL,
       first_seq ${d.bigint} NOT NULL CHECK (first_seq >= 1),
       chunks_json TEXT NOT NULL,
       PRIMARY KEY (llm_call_id, first_seq)
     )`,
  ],
};

// Every call wrote an entry in this index (one more page per running-row commit) for the rare
// `source_hash` filter, which now reads the id index newest first instead. Nothing deletes
// response sources, so the foreign key needs no index on this side either.
const fewerIndexes: Migration = {
  id: 341,
  name: 'source_invocations_drop_source_idx',
  up: () => ['DROP INDEX source_invocations_source_idx'],
};

// Each of these cost a page write on every call carrying the column (world calls carry all
// three) and no query reads through them: the world's reads go by attempt, the pictures filter
// an attempt's rows in memory, and nothing deletes invocations (the parent foreign key is
// checked through the primary key).
const unreadIndexes: Migration = {
  id: 342,
  name: 'source_invocations_drop_unread_indexes',
  up: () => [
    'DROP INDEX source_invocations_workflow_idx',
    'DROP INDEX source_invocations_parent_idx',
    'DROP INDEX source_invocations_subject_idx',
  ],
};

// The output is stored once. A finished LLM call leaves `raw_text` NULL when it equals its
// invocation's `response_text`, stores `normalized_text` NULL with `normalized_is_raw = 1` when
// the normalized text is the raw text, keeps a `parsed_output` artifact without its content when
// that is the invocation's `response_json`, and omits `messages` from `request_json` when they are
// the invocation request's own. The reader (`getLlmCall`) puts them back; older rows keep every
// value and read the same.
const outputOnce: Migration = {
  id: 343,
  name: 'llm_calls_output_once',
  up: () => ['ALTER TABLE llm_calls ADD COLUMN normalized_is_raw INTEGER NOT NULL DEFAULT 0'],
};

// No table changes: it marks the stored trace's format. From here on an LLM call's stored wire body
// keeps `"schema": null` where the schema is its invocation's result schema (in json_schemas, by
// `output_schema_hash`), and streamed chunks are stored as differences between consecutive events
// (`llm/chunk-codec.ts`). An older Noema would read those rows wrong without a word; with this
// migration applied it refuses the database instead (SCHEMA_TOO_NEW).
const storedOnceMore: Migration = {
  id: 346,
  name: 'llm_trace_schema_once_chunk_differences',
  up: () => [],
};

export const sourcesTraceMigrations: readonly Migration[] = [
  chunkBatches,
  fewerIndexes,
  unreadIndexes,
  outputOnce,
  statusCheckMigration,
  llmTraceOnInvocationMigration,
  storedOnceMore,
];
