/**
 * A step's commit as a list of statements, built once and run by either transaction: synchronously
 * where the store can (no promise per statement) or awaited. Both runners check the same fences.
 */
import type { RunResult, SqlValue, SyncTransaction, Transaction } from '../../store/store.ts';

export interface StepWrite {
  sql: string;
  params: SqlValue[];
  /** Thrown when the statement changed no row (a lease fence or a compare-and-set lost); null: no check. */
  miss: (() => Error) | null;
}

export function runWritesSync(tx: SyncTransaction, writes: readonly StepWrite[]): void {
  for (let i = 0; i < writes.length; i++) {
    const w = writes[i]!;
    const r = tx.run(w.sql, w.params);
    if (w.miss !== null && r.changes !== 1) throw w.miss();
  }
}

const handled = (): void => {};

/**
 * Issues every write before awaiting any (the statements are independent: a store that pipelines
 * sends them in one round trip, see Transaction), then checks them in order. The writes are issued
 * when this returns, so statements issued after it run after them.
 */
export function runWrites(tx: Transaction, writes: readonly StepWrite[]): Promise<void> {
  const issued = new Array<Promise<RunResult>>(writes.length);
  for (let i = 0; i < writes.length; i++) {
    const w = writes[i]!;
    issued[i] = tx.run(w.sql, w.params);
    // Checked below, in order; one rejecting while an earlier one is awaited is not unhandled.
    issued[i]!.catch(handled);
  }
  return checkWrites(writes, issued);
}

async function checkWrites(writes: readonly StepWrite[], issued: Array<Promise<RunResult>>): Promise<void> {
  for (let i = 0; i < writes.length; i++) {
    const r = await issued[i]!;
    const miss = writes[i]!.miss;
    if (miss !== null && r.changes !== 1) throw miss();
  }
}
