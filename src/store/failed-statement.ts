/**
 * A transaction one of whose statements failed cannot commit, even when its callback caught the
 * failure and went on: PostgreSQL aborts a transaction at its first failed statement (every later
 * statement is refused and its COMMIT answers ROLLBACK), and SQLite, which undoes only the failed
 * statement, is held to the same rule so that a callback behaves alike on both. The store rolls the
 * transaction back and rejects with this error, the failed statement's error as its cause.
 */
import { NoemaError } from '../core/errors.ts';

export function failedInsideTransaction(cause: unknown): NoemaError {
  const what = (cause as { message?: unknown } | null)?.message;
  return new NoemaError(
    'INTERNAL',
    `a statement failed inside the transaction, which was rolled back: ${typeof what === 'string' ? what : String(cause)}`,
    {
      hint: 'rethrow a statement’s failure inside a transaction: its failure fails the whole transaction',
      cause,
    },
  );
}

/**
 * A write inside a read transaction (`TransactionOptions.mode: 'read'`): refused on both backends
 * (PostgreSQL's `BEGIN READ ONLY`, SQLite's `PRAGMA query_only` for the transaction's length). A
 * caller's error, not the store's state.
 */
export function writeInReadTransaction(cause: unknown): NoemaError {
  const what = (cause as { message?: unknown } | null)?.message;
  return new NoemaError(
    'INTERNAL',
    `a write inside a read transaction was refused: ${typeof what === 'string' ? what : String(cause)}`,
    { hint: "a transaction that writes must not be opened with mode: 'read'", cause },
  );
}
