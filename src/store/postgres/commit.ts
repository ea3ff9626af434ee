/**
 * A PostgreSQL transaction's end: its COMMIT, with the notifications queued for it
 * (`Transaction.notifyWithCommit`) in the same round trip, and what is left to do when the server
 * had already aborted the transaction (a statement failed and its callback went on): roll it back,
 * so the pooled connection is handed out again outside any transaction, and say so.
 */
import pg from 'pg';
import { telemetry } from '../../core/telemetry.ts';
import { failedInsideTransaction } from '../failed-statement.ts';
import { translatePostgresError } from './translate-error.ts';

export interface AtCommit {
  sql: string;
  settled: ((refused: Error | null) => void) | undefined;
}

/** SQLSTATE no_active_sql_transaction (ROLLBACK TO SAVEPOINT outside a transaction block). */
const NO_ACTIVE_TRANSACTION = '25P01';
/** SQLSTATE in_failed_sql_transaction: the transaction was aborted by a statement that failed. */
const ABORTED_TRANSACTION = '25P02';
const ABORTED = new Error('the server had aborted the transaction (a statement failed in it)');

/**
 * The statements of a PostgreSQL transaction, a failure among them remembered: PostgreSQL aborts a
 * transaction at its first statement the server refuses, so one whose callback caught the failure
 * and went on cannot commit (`../failed-statement.ts`).
 */
export class StatementFailures {
  /** The first statement the server refused (its translated error), or null. */
  first: unknown = null;

  /** Notes `err` if the server refused the statement (not a value refused before it was sent). */
  saw(err: unknown): void {
    if (this.first !== null) return;
    const raw = (err as { cause?: unknown } | null)?.cause ?? err;
    if (raw instanceof pg.DatabaseError) this.first = err;
  }
}

/**
 * Ends the transaction on `client`: rolls it back and rejects when a statement failed inside it,
 * else commits it with the notifications queued for it. A refused notification is rolled back to its
 * savepoint and the transaction commits without it (a second round trip, on that path only), as
 * `notify` would have. If the COMMIT itself fails the transaction is over, the savepoint with it,
 * and the COMMIT's error stands.
 */
export async function commitWith(
  client: pg.PoolClient,
  notes: readonly AtCommit[],
  failures: StatementFailures,
): Promise<void> {
  if (failures.first !== null) return abort(client, failures.first);
  // Timed only for an installed observer (store commit latency metric).
  if (!telemetry()?.storeCommit) return commitWithNotes(client, notes);
  const t0 = performance.now();
  await commitWithNotes(client, notes);
  try {
    telemetry()?.storeCommit?.((performance.now() - t0) / 1000);
  } catch {}
}

/** Rolls back a transaction the server aborted, and rejects with why. */
async function abort(client: pg.PoolClient, cause: unknown): Promise<never> {
  await client.query('ROLLBACK');
  throw failedInsideTransaction(cause);
}

async function commitWithNotes(client: pg.PoolClient, notes: readonly AtCommit[]): Promise<void> {
  if (notes.length === 0) {
    // A COMMIT of an aborted transaction answers ROLLBACK, without an error.
    if ((await client.query('COMMIT')).command !== 'COMMIT') throw failedInsideTransaction(ABORTED);
    return;
  }
  const selects = notes.map((n) => n.sql).join('; ');
  let refused: Error | null = null;
  try {
    // In an aborted transaction the SAVEPOINT itself is refused, so this never answers ROLLBACK.
    await client.query(`SAVEPOINT noema_notify; ${selects}; RELEASE SAVEPOINT noema_notify; COMMIT`);
  } catch (err) {
    // Aborted before the notifications: nothing of it may commit, and the connection must leave it.
    if ((err as { code?: string }).code === ABORTED_TRANSACTION) return abort(client, err);
    try {
      await client.query('ROLLBACK TO SAVEPOINT noema_notify; RELEASE SAVEPOINT noema_notify; COMMIT');
    } catch (again) {
      // No transaction block any more: the COMMIT failed, not a notification.
      throw (again as { code?: string }).code === NO_ACTIVE_TRANSACTION ? err : again;
    }
    refused = translatePostgresError(err) as Error;
  }
  for (const n of notes) n.settled?.(refused);
}
