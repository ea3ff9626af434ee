/** Long-term memory schema (ids 130–139): memory records with full-text retrieval by scope. */
import type { Migration } from '../../store/index.ts';

const FTS = ['long_term_memories', 'memory_id', 'text', ['scope_key']] as const;

export const longTermMigrations: Migration[] = [
  {
    id: 130,
    name: 'long_term_memories',
    up: (d) => [
      `CREATE TABLE long_term_memories (
         memory_id ${d.autoId},
         scope_kind TEXT NOT NULL,
         scope_id TEXT NOT NULL,
         scope_key TEXT NOT NULL,
         kind TEXT NOT NULL,
         text TEXT NOT NULL,
         meta_json TEXT NOT NULL,
         created_at_ms ${d.bigint} NOT NULL,
         updated_at_ms ${d.bigint} NOT NULL
       )`,
      'CREATE INDEX long_term_memories_scope ON long_term_memories (scope_kind, scope_id, kind, memory_id)',
      'CREATE INDEX long_term_memories_scope_key ON long_term_memories (scope_key, memory_id)',
      // The scope is one selective token (`scopeKey`) indexed with the text, so a search inside one
      // user's memories never walks the doclist of a word every scope shares (like "user").
      ...d.fullText.indexDdl(...FTS),
    ],
  },
  {
    // The full-text index as the store's primitive builds it now (SQLite: newest first, no content
    // copy), rebuilt from the rows.
    id: 131,
    name: 'long_term_memories_fts_newest_first',
    up: (d) => [...d.fullText.dropIndexDdl(FTS[0], FTS[2]), ...d.fullText.indexDdl(...FTS)],
  },
  {
    // The full-text index in the store's current layout (PostgreSQL: a posting table read newest
    // first per word, filled from the rows in one statement; SQLite: unchanged).
    id: 132,
    name: 'long_term_memories_fts_postings',
    up: (d) => d.fullText.upgradeIndexDdl(...FTS),
  },
];
