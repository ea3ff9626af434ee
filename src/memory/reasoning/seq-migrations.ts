/**
 * The reasoning seq per workspace (migration 342, from the id range of the change that added
 * it): each workspace takes blocks of the global counter and hands out their values itself, so
 * writers to different workspaces no longer wait for each other's commits.
 */
import type { Migration } from '../../store/migrations.ts';

// `next` is the workspace's next value, `block_end` the last value of its current block (taken
// from `reasoning_seq`); 0/0 until its first allocation takes a block.
const workspaceSeq: Migration = {
  id: 342,
  name: 'reasoning_workspace_seq',
  up: (d) => [
    `CREATE TABLE reasoning_workspace_seq (
       workspace TEXT PRIMARY KEY,
       next ${d.bigint} NOT NULL,
       block_end ${d.bigint} NOT NULL
     )`,
  ],
};

export const reasoningSeqMigrations: readonly Migration[] = [workspaceSeq];
