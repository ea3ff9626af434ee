/** Long-term memory schema (ids 130–139): memory records with full-text retrieval by scope. */
import type { Migration } from '../../store/index.ts';

export const longTermMigrations: Migration[] = [
  {
    id: 130,
    name: 'long_term_memories',
    up: (d) => [
      `CREATE TABLE long_term_memories (
         memory_id ${d.autoId},
         scope_kind TEXT NOT NULL,
         scope_id TEXT NOT NULL,
         kind TEXT NOT NULL,
         text TEXT NOT NULL,
         meta_json TEXT NOT NULL,
         created_at_ms ${d.bigint} NOT NULL,
         updated_at_ms ${d.bigint} NOT NULL
       )`,
      'CREATE INDEX long_term_memories_scope ON long_term_memories (scope_kind, scope_id, kind, memory_id)',
      ...d.fullText.indexDdl('long_term_memories', 'memory_id', 'text', ['scope_kind', 'scope_id']),
    ],
  },
];
