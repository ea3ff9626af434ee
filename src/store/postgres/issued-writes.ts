/**
 * The writes a PostgreSQL transaction's callback issued without waiting for their answers
 * (`Transaction.write`, `writeOne`, `writeReturning`): the store sends the COMMIT right behind them on the pipelined
 * connection and awaits their answers after it. The server runs them in order before the COMMIT, so
 * one that failed has aborted the transaction, and its COMMIT then answers ROLLBACK: when the first
 * statement the server refused was such a write, its own error (a `writeOne`'s `miss()`) is the
 * transaction's error.
 */
import type { StatementFailures } from './commit.ts';

/**
 * `sql` (one INSERT, UPDATE or DELETE without RETURNING) as a statement that fails unless it changed
 * exactly one row: the server aborts the transaction at it, as a check made after the answer would
 * roll it back. The failure is a division by zero (SQLSTATE 22012) computed from the changed rows'
 * count, which the server cannot fold away beforehand.
 */
export function exactlyOneRow(sql: string): string {
  return checkedText(
    rowTexts,
    sql,
    (s) =>
      `WITH noema_written AS (${s} RETURNING 1) SELECT 1 / (COUNT(*) = 1)::int AS one FROM noema_written`,
  );
}

/**
 * `sql` (one INSERT, UPDATE or DELETE with RETURNING) as a statement that fails, as `exactlyOneRow`'s
 * does, unless it returned exactly one row, and otherwise answers that row (with the check's column,
 * `noema_one`, which `withoutCheck` takes off). The one-row relation it joins answers a row even when
 * the write returned none, so the division runs whatever the write did.
 */
export function exactlyOneReturned(sql: string): string {
  return checkedText(
    returnedTexts,
    sql,
    (s) =>
      `WITH noema_written AS (${s}) SELECT noema_written.*, 1 / (SELECT (COUNT(*) = 1)::int FROM noema_written) AS noema_one FROM (SELECT 1) AS noema_row LEFT JOIN noema_written ON true`,
  );
}

/** The rows of an `exactlyOneReturned` statement as the write returned them. */
export function withoutCheck(rows: Array<Record<string, unknown>>): Array<Record<string, unknown>> {
  for (const r of rows) delete r.noema_one;
  return rows;
}

/** `build(sql)`, built once per text: the callers' texts are of a fixed shape (a few per process). */
function checkedText(cache: Map<string, string>, sql: string, build: (sql: string) => string): string {
  let checked = cache.get(sql);
  if (checked === undefined) {
    checked = build(sql);
    if (cache.size < CHECKED_TEXTS) cache.set(sql, checked);
  }
  return checked;
}

const CHECKED_TEXTS = 256;
const rowTexts = new Map<string, string>();
const returnedTexts = new Map<string, string>();

const DIVISION_BY_ZERO = '22012';

/** Whether `err` (as the store translated it) is the server's division by zero. */
function missed(err: unknown): boolean {
  const e = err as { details?: { sqlstate?: unknown }; cause?: { code?: unknown } } | null;
  return e?.details?.sqlstate === DIVISION_BY_ZERO || e?.cause?.code === DIVISION_BY_ZERO;
}

export class IssuedWrites {
  readonly #failures: StatementFailures;
  readonly #settled: Promise<void>[] = [];
  /** The issued writes' failures, each with the error it stands for (its miss, or itself). */
  readonly #failed = new Map<unknown, unknown>();

  /** `failures`: the transaction's record of the statements the server refused, in answer order. */
  constructor(failures: StatementFailures) {
    this.#failures = failures;
  }

  /** A write's answer; `miss`: the error when it changed no row (`exactlyOneRow`). */
  add(answer: Promise<unknown>, miss?: () => Error): void {
    this.#settled.push(
      answer.then(
        () => {},
        (err: unknown) => {
          this.#failed.set(err, miss !== undefined && missed(err) ? miss() : err);
        },
      ),
    );
  }

  /**
   * Once every issued write has answered: the transaction's error if the first statement the server
   * refused was one of them (its own error, or its miss), else null.
   */
  async cause(): Promise<unknown> {
    if (this.#settled.length === 0) return null;
    await Promise.all(this.#settled);
    const first = this.#failures.first;
    return first !== null && this.#failed.has(first) ? this.#failed.get(first) : null;
  }

  /** Awaits `commit` (sent behind the issued writes) and their answers; rejects with `cause()` first. */
  async settledWith(commit: Promise<void>): Promise<void> {
    if (this.#settled.length === 0) return commit;
    commit.catch(() => {});
    const cause = await this.cause();
    try {
      await commit;
    } catch (err) {
      throw cause ?? err;
    }
    // Committed although a write failed: impossible while the server aborts a transaction at its
    // first refused statement; never reported as a success.
    if (this.#failed.size > 0) throw cause ?? [...this.#failed.values()][0];
  }
}
