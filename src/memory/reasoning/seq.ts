/**
 * The reasoning seq, shared by doc entries, graph versions and conflicts so a branch's base_seq
 * cuts them all. Values are unique across the store and increase in commit order within each
 * workspace, which is every order the memory reads (branches, cuts, cursors and merges never
 * compare seqs of two workspaces). Each workspace hands out values from a block of
 * `BLOCK_SIZE` it took from the global counter (`reasoning_seq`); the workspace's counter row
 * stays locked until commit, so on PostgreSQL its writers serialize there, and only a writer
 * taking a new block holds the global row, once per `BLOCK_SIZE` values.
 */
import { NoemaError } from '../../core/errors.ts';
import type { Queryable, Transaction } from '../../store/store.ts';

export const BLOCK_SIZE = 1024;

/**
 * Locks the workspace's counter row until commit (creating it on first use) and returns its
 * `next` and `block_end`. Every writer of the workspace takes this lock first.
 */
async function lockWorkspaceSeq(
  tx: Transaction,
  workspace: string,
): Promise<{ next: number; block_end: number }> {
  await tx.run(
    'INSERT INTO reasoning_workspace_seq (workspace, next, block_end) VALUES (?, 0, 0) ON CONFLICT (workspace) DO NOTHING',
    [workspace],
  );
  const row = await tx.get<{ next: number; block_end: number }>(
    'UPDATE reasoning_workspace_seq SET next = next WHERE workspace = ? RETURNING next, block_end',
    [workspace],
  );
  if (!row) throw new NoemaError('INTERNAL', `reasoning_workspace_seq row for ${workspace} is missing`);
  return { next: Number(row.next), block_end: Number(row.block_end) };
}

/**
 * Allocates `count` consecutive values of the workspace's seq and returns the first. Call inside
 * a write transaction: the workspace's counter row stays locked until commit, so seq order
 * equals commit order within the workspace (a reader's `currentSeq` never skips an uncommitted
 * lower seq of that workspace).
 */
export async function allocateSeq(tx: Transaction, workspace: string, count = 1): Promise<number> {
  if (!Number.isInteger(count) || count < 1)
    throw new NoemaError('INTERNAL', `allocateSeq count must be >= 1 (got ${count})`);
  const { next, block_end } = await lockWorkspaceSeq(tx, workspace);
  if (next > 0 && next + count - 1 <= block_end) {
    await tx.run('UPDATE reasoning_workspace_seq SET next = ? WHERE workspace = ?', [
      next + count,
      workspace,
    ]);
    return next;
  }
  // A new block, past every value handed out so far (and every seq written before blocks existed).
  const size = Math.max(BLOCK_SIZE, count);
  const row = await tx.get<{ value: number }>(
    'UPDATE reasoning_seq SET value = value + ? WHERE id = 1 RETURNING value',
    [size],
  );
  if (!row) throw new NoemaError('INTERNAL', 'reasoning_seq counter row is missing');
  const first = Number(row.value) - size + 1;
  await tx.run('UPDATE reasoning_workspace_seq SET next = ?, block_end = ? WHERE workspace = ?', [
    first + count,
    Number(row.value),
    workspace,
  ]);
  return first;
}

/**
 * Serializes this transaction with every writer of the workspace (until commit), for
 * transactions that read state and then decide what to write (merge, conflict resolution,
 * think cards): concurrent callers then decide on each other's committed results.
 */
export async function lockWorkspaceWriters(tx: Transaction, workspace: string): Promise<void> {
  await lockWorkspaceSeq(tx, workspace);
}

/**
 * The workspace's highest allocated (and, outside an allocating transaction, committed) seq; 0
 * when none. A workspace that never allocated since blocks exist answers the global counter,
 * which is at least every seq written before.
 */
export async function currentSeq(q: Queryable, workspace: string): Promise<number> {
  const ws = await q.get<{ next: number }>('SELECT next FROM reasoning_workspace_seq WHERE workspace = ?', [
    workspace,
  ]);
  if (ws && Number(ws.next) > 0) return Number(ws.next) - 1;
  const row = await q.get<{ value: number }>('SELECT value FROM reasoning_seq WHERE id = 1');
  return row ? Number(row.value) : 0;
}
