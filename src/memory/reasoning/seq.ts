/** The one global reasoning seq, shared by doc entries and graph versions so a branch's base_seq cuts both. */
import { NoemaError } from '../../core/errors.ts';
import type { Queryable, Transaction } from '../../store/store.ts';

/**
 * Allocates `count` consecutive values of the global seq and returns the first. Call inside a
 * write transaction: the counter row stays locked until commit, so on PostgreSQL writers
 * serialize here and seq order equals commit order (a reader's `currentSeq` never skips an
 * uncommitted lower seq).
 */
export async function allocateSeq(tx: Transaction, count = 1): Promise<number> {
  if (!Number.isInteger(count) || count < 1)
    throw new NoemaError('INTERNAL', `allocateSeq count must be >= 1 (got ${count})`);
  const row = await tx.get<{ value: number }>(
    'UPDATE reasoning_seq SET value = value + ? WHERE id = 1 RETURNING value',
    [count],
  );
  if (!row) throw new NoemaError('INTERNAL', 'reasoning_seq counter row is missing');
  return Number(row.value) - count + 1;
}

/** The highest allocated (and, outside the allocating transaction, committed) seq; 0 when none. */
export async function currentSeq(q: Queryable): Promise<number> {
  const row = await q.get<{ value: number }>('SELECT value FROM reasoning_seq WHERE id = 1');
  return row ? Number(row.value) : 0;
}
