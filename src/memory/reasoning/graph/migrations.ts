/**
 * Graph schema (ids 110–119): versioned node and edge rows (one row per mutation, tombstones for
 * deletes, `is_head` marking each key's latest version on its own branch, `next_seq` the seq that
 * superseded a version) and merge conflicts.
 */
import type { Migration } from '../../../store/index.ts';

export const graphMigrations: Migration[] = [
  {
    id: 110,
    name: 'graph_versions',
    // Indexes: key lookups (unique), per-branch scans by seq (diff, merge, derived views),
    // head-only scans by seq (queries on a branch's own state), and edge endpoint lookups.
    up: (d) => [
      `CREATE TABLE graph_nodes (
         workspace TEXT NOT NULL,
         branch TEXT NOT NULL,
         doc TEXT NOT NULL,
         node_id TEXT NOT NULL,
         seq ${d.bigint} NOT NULL,
         ts_ms ${d.bigint} NOT NULL,
         type TEXT NOT NULL,
         title TEXT,
         text TEXT,
         status TEXT,
         tags TEXT NOT NULL,
         meta TEXT,
         deleted INTEGER NOT NULL,
         is_head INTEGER NOT NULL,
         next_seq ${d.bigint},
         search TEXT NOT NULL,
         origin TEXT
       )`,
      'CREATE UNIQUE INDEX graph_nodes_key ON graph_nodes (workspace, branch, doc, node_id, seq)',
      'CREATE INDEX graph_nodes_seq ON graph_nodes (workspace, branch, doc, seq)',
      'CREATE INDEX graph_nodes_head ON graph_nodes (workspace, branch, doc, seq, deleted) WHERE is_head = 1',
      `CREATE TABLE graph_edges (
         workspace TEXT NOT NULL,
         branch TEXT NOT NULL,
         doc TEXT NOT NULL,
         from_id TEXT NOT NULL,
         rel TEXT NOT NULL,
         to_id TEXT NOT NULL,
         seq ${d.bigint} NOT NULL,
         ts_ms ${d.bigint} NOT NULL,
         meta TEXT,
         deleted INTEGER NOT NULL,
         is_head INTEGER NOT NULL,
         next_seq ${d.bigint},
         origin TEXT
       )`,
      'CREATE UNIQUE INDEX graph_edges_key ON graph_edges (workspace, branch, doc, from_id, rel, to_id, seq)',
      'CREATE INDEX graph_edges_seq ON graph_edges (workspace, branch, doc, seq)',
      'CREATE INDEX graph_edges_head ON graph_edges (workspace, branch, doc, seq) WHERE is_head = 1',
      'CREATE INDEX graph_edges_to ON graph_edges (workspace, branch, doc, to_id, seq)',
    ],
  },
  {
    id: 111,
    name: 'graph_conflicts',
    up: (d) => [
      `CREATE TABLE graph_conflicts (
         conflict_id TEXT PRIMARY KEY,
         workspace TEXT NOT NULL,
         seq ${d.bigint} NOT NULL,
         from_branch TEXT NOT NULL,
         into_branch TEXT NOT NULL,
         doc TEXT NOT NULL,
         kind TEXT NOT NULL,
         key TEXT NOT NULL,
         status TEXT NOT NULL,
         base TEXT,
         theirs TEXT,
         ours TEXT,
         resolution TEXT,
         created_at_ms ${d.bigint} NOT NULL,
         resolved_at_ms ${d.bigint}
       )`,
      'CREATE INDEX graph_conflicts_into ON graph_conflicts (workspace, into_branch, doc, seq)',
    ],
  },
];
