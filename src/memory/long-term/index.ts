/**
 * Long-term memory, the front door: records with a positive integer `memory_id`, a scope (user,
 * agent, flowchart), text, kind and meta; full-text retrieval ranked by relevance and recency
 * (SQLite FTS5, a PostgreSQL posting table, through the store's full-text primitive). Shared by
 * agent sessions and flowchart memory nodes.
 */
export { longTermMigrations } from './migrations.ts';
export {
  type AddMemoryInput,
  addMemory,
  forgetScope,
  getMemory,
  MAX_MEMORY_TEXT_CHARS,
  MEMORY_SCOPE_KINDS,
  type MemoryRecord,
  type MemoryScope,
  type MemoryScopeKind,
} from './records.ts';
export {
  CANDIDATE_WINDOW,
  clampLimit,
  MAX_RETRIEVE_LIMIT,
  type RetrievedMemory,
  type RetrieveInput,
  retrieveMemories,
} from './retrieve.ts';
