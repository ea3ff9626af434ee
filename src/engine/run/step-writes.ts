/**
 * A step's commit as a list of statements, built once and run by either transaction: synchronously
 * where the store can (no promise per statement) or awaited. Both runners check the same fences.
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

export async function runWrites(tx: Transaction, writes: readonly StepWrite[]): Promise<void> {
  for (let i = 0; i < writes.length; i++) {
    const w = writes[i]!;
    const r = await tx.run(w.sql, w.params);
    if (w.miss !== null && r.changes !== 1) throw w.miss();
  }
}
