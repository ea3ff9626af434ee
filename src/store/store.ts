/**
 * The Store contract: the one durable store every Noema subsystem writes through.
 * Implementations live in `sqlite/` and `postgres/`; code above this layer sees only this file.
 */

/** A value that can be bound to a `?` placeholder. Booleans are stored as 0/1 integers. */
export type SqlValue = string | number | bigint | boolean | null | Uint8Array;

/** One result row. Column names are as selected; integers come back as JS numbers. */
export type Row = Record<string, unknown>;

export interface RunResult {
  /** Rows inserted, updated or deleted by the statement. */
  changes: number;
}

/**
 * The three query primitives. SQL is written once for both backends with `?` placeholders
 * (the PostgreSQL implementation rewrites them to `$n`). Write portable SQL: `INSERT … ON
 * CONFLICT … DO …`, `RETURNING`, `COALESCE`; keep JSON in TEXT columns and decode in code.
 */
export interface Queryable {
  /** Executes a statement that returns no rows of interest. */
  run(sql: string, params?: readonly SqlValue[]): Promise<RunResult>;
  /** Returns every row of a query. Callers bound their reads with `LIMIT`. */
  all<T extends Row = Row>(sql: string, params?: readonly SqlValue[]): Promise<T[]>;
  /** Returns the first row of a query, or `undefined`. */
  get<T extends Row = Row>(sql: string, params?: readonly SqlValue[]): Promise<T | undefined>;
}

/** A transaction handle. Valid only inside the callback it was passed to. */
export interface Transaction extends Queryable {
  /**
   * Sends `payload` on `channel` when (and only if) the transaction commits. A no-op on
   * backends without `supportsListenNotify`; in-process subscribers are served by the caller.
   */
  notify(channel: string, payload: string): Promise<void>;
}

/** Real differences between backends, as flags. Never branch on the backend's name. */
export interface StoreCapabilities {
  /** `SELECT … FOR UPDATE SKIP LOCKED` works for claiming work among processes. */
  readonly supportsSkipLocked: boolean;
  /** `LISTEN/NOTIFY` fans events out to other processes. */
  readonly supportsListenNotify: boolean;
  /** Writers from several connections proceed in parallel (otherwise they are serialized). */
  readonly concurrentWriters: boolean;
}

/** SQL type names for migrations, so one migration list serves both dialects. */
export interface Dialect {
  readonly name: 'sqlite' | 'postgres';
  /** `INTEGER PRIMARY KEY AUTOINCREMENT` / `BIGSERIAL PRIMARY KEY`: a monotonically allocated id. */
  readonly autoId: string;
  /** A 64-bit integer column type. */
  readonly bigint: string;
  /** A double-precision float column type. */
  readonly real: string;
  /** A binary column type. */
  readonly blob: string;
}

export interface TransactionOptions {
  /**
   * `write` (default) takes the write lock up front (SQLite `BEGIN IMMEDIATE`), so a
   * read-then-write transaction cannot fail halfway on lock upgrade.
   */
  mode?: 'read' | 'write';
  /**
   * `deferred` lets the commit return before it is flushed to disk (PostgreSQL
   * `synchronous_commit = off` for this transaction): it is visible at once, and durable no later
   * than the next ordinary commit on the same server, whose flush covers every earlier commit.
   * Only a crash of the database server in between loses it: use it only for writes whose loss
   * recovery already handles. SQLite ignores it (its WAL commits are never fsynced one by one).
   */
  durability?: 'immediate' | 'deferred';
}

export type Unlisten = () => Promise<void>;

export interface Store extends Queryable {
  readonly dialect: Dialect;
  readonly capabilities: StoreCapabilities;
  /** Where the data lives, with any password removed: safe to print. */
  readonly location: string;
  /**
   * Runs `fn` in one transaction: commits when it resolves, rolls back when it throws, and
   * rethrows. Use only the `tx` passed in; calling the store itself from inside `fn` is a
   * `NESTED_TRANSACTION` error (it would deadlock on SQLite).
   */
  transaction<T>(fn: (tx: Transaction) => Promise<T>, options?: TransactionOptions): Promise<T>;
  /**
   * Subscribes to a notification channel across processes. Present only when
   * `capabilities.supportsListenNotify`.
   */
  listen?(channel: string, handler: (payload: string) => void): Promise<Unlisten>;
  /** Releases connections. Idempotent. */
  close(): Promise<void>;
}
