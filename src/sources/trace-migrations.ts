/**
 * Sources migrations 340–369 (the trace's write path): chunk batches persisted while an LLM
 * call streams, and one index fewer on the hot `source_invocations` row.
 */
import type { Migration } from '../store/index.ts';

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

export const sourcesTraceMigrations: readonly Migration[] = [chunkBatches, fewerIndexes];
