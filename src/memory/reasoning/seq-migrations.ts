/**
 * The reasoning seq per workspace (migration 112): each workspace takes blocks of the global counter and hands out their values itself, so
 * writers to different workspaces no longer wait for each other's commits.
 */
import type { Migration } from '../../store/index.ts';

// `next` is the workspace's next value, `block_end` the last value of its current block (taken
// from `reasoning_seq`); 0/0 until its first allocation takes a block.
const workspaceSeq: Migration = {
  id: 112,
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
