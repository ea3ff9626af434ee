/** Committing the `running` row before a byte is sent: synchronously where it can, else in a transaction. */
import { STORE_BUSY, type Store } from '../../store/store.ts';
import type { InvokeOptions, TransactionRunner } from './options.ts';
import type { ProcessLease } from './process-lease.ts';
import {
  insertRunningRow,
  insertRunningRowAlone,
  insertRunningRowAloneAsync,
  insertRunningRowSync,
  type RunningRow,
  SeqNameTaken,
  unnamed,
} from './record.ts';

/**
 * Commits the running row: in the caller's transaction when it passed a runner (its synchronous one
 * first, where it has one and the lease needs no write); else synchronously where the store offers
 * it and the lease needs no write (no turn of the event loop inside the transaction) — as its one
 * statement committed on its own when its seq is given, else in a synchronous transaction; else,
 * the lease needing no write, as its one statement committed on its own in one round trip where the
 * store's statements are asynchronous; else in a transaction of its own.
 */
export async function commitRunning(
  store: Store,
  options: InvokeOptions,
  lease: ProcessLease,
  row: RunningRow,
  now: number,
): Promise<number> {
  if (!lease.needsTouch(now)) {
    // The caller's synchronous runner where it has one; else one statement, committed on its own
    // where the store can, or one synchronous transaction.
    const seq = options.running
      ? options.runningSync?.((tx) => insertRunningRowSync(tx, row))
      : (insertRunningRowAlone(store, row) ?? store.transactionSync?.((tx) => insertRunningRowSync(tx, row)));
    if (seq !== undefined && seq !== STORE_BUSY) return seq;
    const alone = options.running ? undefined : await insertRunningRowAloneAsync(store, row);
    if (alone !== undefined) return alone;
  }
  const running: TransactionRunner = options.running ?? ((write) => store.transaction(write));
  const commit = (r: RunningRow) =>
    running(async (tx) => {
      await lease.touch(tx, now);
      return insertRunningRow(tx, r);
    });
  try {
    return await commit(row);
  } catch (err) {
    // The seq the row named was taken (rolled back, nothing written): once more, allocating one.
    if (!(err instanceof SeqNameTaken)) throw err;
    return commit(unnamed(row));
  }
}
