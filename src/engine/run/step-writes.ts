/**
 * A step's commit as a list of statements, built once and run by either transaction: synchronously
 * where the store can (no promise per statement) or issued without waiting for their answers. Both
 * runners check the same fences.
 */
import type { SqlValue, SyncTransaction, Transaction } from '../../store/store.ts';

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

/**
 * Issues every write without waiting for any answer (`Transaction.write`, `writeOne`): a store that
 * pipelines sends them, and the COMMIT behind them, in one round trip. A failed write or a check lost
 * is the transaction's error — thrown here where the store's statements are synchronous, else when
 * the transaction ends (the database itself then aborts it at that statement). Statements issued
 * after this call run after these.
 */
export function issueWrites(tx: Transaction, writes: readonly StepWrite[]): void {
  for (let i = 0; i < writes.length; i++) {
    const w = writes[i]!;
    if (w.miss === null) tx.write(w.sql, w.params);
    else tx.writeOne(w.sql, w.params, w.miss);
  }
}
