/**
 * Reasoning-memory schema (ids 100–109): workspaces, branch refs, the one global seq counter,
 * document entries (notes/trace logs), and the target registry tasks write into.
 */
import type { Migration } from '../../store/index.ts';

export const reasoningMigrations: Migration[] = [
  {
    id: 100,
    name: 'reasoning_workspaces',
    up: (d) => [
      `CREATE TABLE reasoning_workspaces (
         workspace TEXT PRIMARY KEY,
         checkout TEXT NOT NULL,
         created_at_ms ${d.bigint} NOT NULL,
         last_event_id TEXT,
         last_event_ts ${d.bigint}
       )`,
    ],
  },
  {
    id: 101,
    name: 'reasoning_branches',
    up: (d) => [
      `CREATE TABLE reasoning_branches (
         workspace TEXT NOT NULL,
         name TEXT NOT NULL,
         base_branch TEXT,
         base_seq ${d.bigint},
         created_at_ms ${d.bigint} NOT NULL,
         PRIMARY KEY (workspace, name)
       )`,
    ],
  },
  {
    id: 102,
    name: 'reasoning_seq',
    // One row; UPDATE … RETURNING on it allocates seqs and (on PG) serializes writers so seq order = commit order.
    up: (d) => [
      `CREATE TABLE reasoning_seq (id INTEGER PRIMARY KEY, value ${d.bigint} NOT NULL)`,
      'INSERT INTO reasoning_seq (id, value) VALUES (1, 0)',
    ],
  },
  {
    id: 103,
    name: 'reasoning_doc_entries',
    // origin_seq: the seq of the original note a merge copy descends from (= seq for originals);
    // a note and its copies share it, which is what makes diff merge-aware.
    up: (d) => [
      `CREATE TABLE doc_entries (
         seq ${d.bigint} PRIMARY KEY,
         ts ${d.bigint} NOT NULL,
         workspace TEXT NOT NULL,
         branch TEXT NOT NULL,
         doc TEXT NOT NULL,
         kind TEXT NOT NULL,
         title TEXT,
         format TEXT,
         meta TEXT,
         content TEXT NOT NULL,
         source_event_id TEXT,
         origin_seq ${d.bigint} NOT NULL
       )`,
      'CREATE INDEX doc_entries_view ON doc_entries (workspace, branch, doc, seq)',
      'CREATE UNIQUE INDEX doc_entries_source_event ON doc_entries (source_event_id, workspace, branch, doc)',
      'CREATE INDEX doc_entries_origin ON doc_entries (origin_seq)',
    ],
  },
  {
    id: 104,
    name: 'reasoning_targets',
    up: (d) => [
      `CREATE TABLE reasoning_targets (
         workspace TEXT NOT NULL,
         target TEXT NOT NULL,
         branch TEXT NOT NULL,
         created_at_ms ${d.bigint} NOT NULL,
         PRIMARY KEY (workspace, target)
       )`,
    ],
  },
];
