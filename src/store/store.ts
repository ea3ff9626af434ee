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
  /** The store's dialect, for queries built from its fragments (full-text search, `textBytes`). */
  readonly dialect: Dialect;
}

/**
 * A transaction handle. Valid only inside the callback it was passed to.
 *
 * Statements run in the order they are issued, and a caller may issue one before the ones before it
 * have answered (independent writes whose results it checks afterwards): PostgreSQL then sends them
 * without waiting (pipelined), so the statements issued together take one round trip instead of one
 * each; SQLite runs each as it is issued. A statement that fails rejects its own promise; on
 * PostgreSQL the ones issued after it in the same transaction reject too (the transaction is aborted),
 * so check results in issue order — the first rejection is the cause — and handle every promise
 * issued. Either way the transaction must then roll back (throw from the callback).
 */
export interface Transaction extends Queryable {
  /**
   * Sends `payload` on `channel` when (and only if) the transaction commits. A no-op on
   * backends without `supportsListenNotify`; in-process subscribers are served by the caller.
   * A notification the backend refuses rejects this call but never aborts the transaction (the
   * store isolates it, e.g. in a savepoint): callers may log and go on to commit.
   */
  notify(channel: string, payload: string): Promise<void>;
  /**
   * As `notify`, for a caller that need not learn of a refusal before the transaction ends: the
   * notification rides on the COMMIT's own round trip where the backend can (PostgreSQL sends it
   * there, in a savepoint) instead of taking one of its own. A refusal still never aborts the
   * transaction; `settled` is told once it has committed — `null` sent, or the refusal. Not told
   * when the transaction rolls back (nothing is sent). Optional: without it, callers use `notify`.
   */
  notifyWithCommit?(channel: string, payload: string, settled?: (refused: Error | null) => void): void;
  /**
   * Serializes this transaction with every other transaction that locks the same `scope`, until
   * it commits or rolls back (read-then-write on a key: allocate the next number, apply each
   * migration once). PostgreSQL takes a transaction-scoped advisory lock on a hash of `scope`;
   * SQLite has nothing to do, because its write transactions already exclude each other.
   */
  lockKey(scope: string): Promise<void>;
  /**
   * Locks the rows `select` (a plain `SELECT … FROM one table WHERE …`, without a locking clause)
   * returns until the transaction ends: `update` (default) excludes other lockers and writers,
   * `share` only writers. A no-op where write transactions already exclude each other (SQLite).
   */
  lockRows(select: string, params?: readonly SqlValue[], mode?: 'update' | 'share'): Promise<void>;
  /**
   * Issues a write whose answer the callback does not wait for. Its failure is the transaction's
   * error (the transaction rolls back): at once where statements are synchronous (SQLite), else
   * when the transaction ends. Where the store pipelines (PostgreSQL) the COMMIT is sent right behind
   * the statements the callback issued, and their answers are awaited after it: a transaction whose
   * callback waits for no answer takes one round trip, its BEGIN, statements and COMMIT together.
   */
  write(sql: string, params?: readonly SqlValue[]): void;
  /**
   * `write` of one INSERT, UPDATE or DELETE (without RETURNING) that must change exactly one row,
   * else the transaction fails with `miss()` (a lease fence or a compare-and-set lost). The check is
   * made by the database itself where the COMMIT does not wait for the answer (PostgreSQL), so a
   * statement that changed no row aborts the transaction before its COMMIT.
   */
  writeOne(sql: string, params: readonly SqlValue[], miss: () => Error): void;
  /**
   * `write` of a statement with RETURNING whose rows the callback needs only once the transaction
   * has ended: `rows` is called with them as the statement answers, before the transaction settles
   * (on PostgreSQL after its COMMIT was sent). A callback must not decide from them whether to commit,
   * and `rows` must not throw (by then the transaction may have committed). With `miss`, the statement
   * must return exactly one row, else the transaction fails with `miss()` (checked as `writeOne`'s is:
   * by the database where the COMMIT does not wait for the answer), and `rows` is not called.
   */
  writeReturning<T extends Row = Row>(
    sql: string,
    params: readonly SqlValue[],
    rows: (rows: T[]) => void,
    miss?: () => Error,
  ): void;
}

/**
 * A transaction handle whose statements return their results directly (no promise): what a backend
 * with synchronous statements (SQLite) offers through `Store.transactionSync`. Valid only inside the
 * callback it was passed to. No `notify`: a transaction that notifies uses `Store.transaction`.
 */
export interface SyncTransaction {
  readonly dialect: Dialect;
  run(sql: string, params?: readonly SqlValue[]): RunResult;
  all<T extends Row = Row>(sql: string, params?: readonly SqlValue[]): T[];
  get<T extends Row = Row>(sql: string, params?: readonly SqlValue[]): T | undefined;
}

/**
 * What `Store.transactionSync` returns, without calling its callback, when it cannot start at once
 * (another transaction holds the connection): the caller then runs the same work through
 * `Store.transaction`, which waits its turn.
 */
export const STORE_BUSY: unique symbol = Symbol('noema.store.busy');

/** Real differences between backends, as flags. Never branch on the backend's name. */
export interface StoreCapabilities {
  /** `SELECT … FOR UPDATE SKIP LOCKED` works for claiming work among processes. */
  readonly supportsSkipLocked: boolean;
  /** `LISTEN/NOTIFY` fans events out to other processes. */
  readonly supportsListenNotify: boolean;
  /**
   * Writers from several connections proceed in parallel (otherwise they are serialized). It
   * answers "can writes overlap?" (e.g. how hard a test can push); locking is `lockKey`/`lockRows`.
   */
  readonly concurrentWriters: boolean;
}

/**
 * SQL fragments that differ between backends: type names for migrations, so one migration list
 * serves both, and row-locking clauses for statements that must lock inside themselves.
 */
export interface Dialect {
  /** `INTEGER PRIMARY KEY AUTOINCREMENT` / `BIGSERIAL PRIMARY KEY`: a monotonically allocated id. */
  readonly autoId: string;
  /**
   * An integer key that grows with each insert while no row is deleted, without `autoId`'s own
   * bookkeeping: `INTEGER PRIMARY KEY` (SQLite's AUTOINCREMENT writes a `sqlite_sequence` row with
   * every insert) / `BIGSERIAL PRIMARY KEY` (the same as `autoId`). For append-only tables.
   */
  readonly growingId: string;
  /** A 64-bit integer column type. */
  readonly bigint: string;
  /** A double-precision float column type. */
  readonly real: string;
  /** A binary column type. */
  readonly blob: string;
  /** Full-text search over one TEXT column (SQLite FTS5, PostgreSQL `tsvector` + GIN). */
  readonly fullText: FullTextDialect;
  /**
   * Appended to a `SELECT` (also a subquery) inside a write transaction to hold its rows against
   * concurrent writers until commit: ` FOR SHARE` on PostgreSQL, empty where write transactions
   * already exclude each other. Prefer `Transaction.lockRows` when a separate statement will do.
   */
  readonly forShare: string;
  /** As `forShare`, excluding other lockers too: ` FOR UPDATE` on PostgreSQL. */
  readonly forUpdate: string;
  /**
   * As `forUpdate`, skipping rows another transaction holds (claiming work among processes):
   * ` FOR UPDATE SKIP LOCKED` where `capabilities.supportsSkipLocked`, otherwise empty.
   */
  readonly forUpdateSkipLocked: string;
  /**
   * `ALTER TABLE … DROP CONSTRAINT / ADD CONSTRAINT` changes a table's CHECK constraints in place
   * (PostgreSQL). Where false (SQLite), a migration changing one rebuilds the table.
   */
  readonly alterConstraints: boolean;
  /**
   * `expr` (a TEXT expression) as a select-list item whose value the driver hands over as its UTF-8
   * bytes (a `Uint8Array`) without decoding it to a string, where it can (SQLite: `CAST(… AS BLOB)`,
   * the same bytes), or as the text itself where every field is decoded anyway (PostgreSQL's driver).
   * For large text that leaves the process as bytes: no string is built and collected per read.
   */
  textBytes(expr: string): string;
  /** Whether `textBytes` hands over bytes (a `Uint8Array`) rather than the text. */
  readonly textBytesUndecoded: boolean;
  /**
   * `expr` (a TEXT expression) as a JSON string literal, character for character what
   * `JSON.stringify` writes for the text (SQLite `json_quote`, PostgreSQL `to_json`); NULL as `null`.
   */
  jsonString(expr: string): string;
  /**
   * A JSON object of the TEXT columns `columns`, each under its own name, as text: character for
   * character what `JSON.stringify` writes (SQLite `json_object`; PostgreSQL the members joined from
   * `jsonString`, as its `json_build_object` spaces them).
   */
  jsonObjectText(columns: readonly string[]): string;
  /**
   * The aggregate of a scalar `expr` over a group's rows as the text of a JSON array, in the order
   * the rows come (`[]` for none); for `JSON.parse`, spacing unspecified.
   */
  jsonArrayAgg(expr: string): string;
  /**
   * Migration statements creating a row trigger: after each row inserted into (or updated in)
   * `table` for which `when` holds, one row is inserted into `into`. It commits with the write that
   * fired it, so writers of `table` need nothing special (e.g. copying text into a search index).
   */
  rowTriggerDdl(spec: RowTrigger): string[];
  /** Migration statements removing what `rowTriggerDdl` created under `name` on `table`. */
  dropRowTriggerDdl(name: string, table: string): string[];
}

/** A trigger copying each written row of one table, as expressions over it, into another table. */
export interface RowTrigger {
  /** Unique among the store's triggers (and functions, where the backend needs one). */
  name: string;
  table: string;
  on: 'insert' | 'update';
  /** A condition over the row written (`NEW.col`; `OLD.col` too on update), portable SQL. */
  when?: string;
  into: string;
  /** `into`'s columns → portable SQL expressions over `NEW.col` (and `OLD.col` on update). */
  values: Readonly<Record<string, string>>;
}

/**
 * Full-text search as a store primitive: the DDL that indexes `table.column` (kept in sync by the
 * database itself, by triggers, so writers need nothing special) and a query that finds the newest
 * matching rows. The table has an integer primary key `id` that grows with time; `filters` are TEXT
 * columns a search can be narrowed by exactly (e.g. a scope), indexed together with the text so a
 * narrow filter stays fast in a large table. Ranking is the caller's: the primitive only finds candidates.
 */
export interface FullTextDialect {
  /**
   * Migration statements creating the index on `table.column` (+ `filters`) for rows keyed by `id`,
   * filled from the rows already in the table.
   */
  indexDdl: IndexDdl;
  /**
   * Statements a reader of a `deferred` index on `table.column` runs (each committed, or inside its
   * transaction) before `matchQuery`, so that the search sees every row committed so far (and its own
   * transaction's); none where the index is always current.
   */
  catchUpSql(table: string, id: string, column: string): string[];
  /** Whether a `deferred` index is filled later than its rows' commits (else it is kept current). */
  readonly defersIndexing: boolean;
  /** Migration statements removing what `indexDdl` created (to replace an index by a newer one). */
  dropIndexDdl(table: string, column: string): string[];
  /**
   * Migration statements bringing an index of this store's previous layout to the current one, filled
   * from the rows: a rebuild where the layout changed (PostgreSQL: a `tsvector` column under GIN became
   * a posting table), nothing where the previous layout is the current one (SQLite).
   */
  upgradeIndexDdl: IndexDdl;
  /**
   * Migration statements replacing, in place, the functions an index's triggers call with the ones
   * `indexDdl` now creates (PostgreSQL: its trigger functions and a deferred index's catch-up); none
   * where the triggers hold their statements themselves (SQLite). The postings are not rebuilt.
   */
  replaceIndexFunctionsDdl: IndexDdl;
  /**
   * `SELECT <id> AS id` of rows of `table` whose `column` matches any word of `text` and whose filter
   * columns equal the given values: the newest `limit` of them (highest ids; in no particular order),
   * at a cost bounded by the limit, not by how many rows match. With `columns`, those columns of the
   * rows (by their names) instead of `id`: where the index is searched beside the rows (SQLite) the
   * rows are read once, not again by a join of the caller's. `null` when `text` has no searchable word.
   */
  matchQuery(spec: {
    table: string;
    id: string;
    column: string;
    text: string;
    filters: Readonly<Record<string, string>>;
    limit: number;
    /** Only rows whose id is below this (the next page of a newest-first listing). */
    before?: number;
    /** Columns of `table` to return instead of `id` (plain column names). */
    columns?: readonly string[];
  }): { sql: string; params: SqlValue[] } | null;
}

/** Migration statements about the full-text index on `table.column` (+ `filters`) of rows keyed by `id`. */
export type IndexDdl = (
  table: string,
  id: string,
  column: string,
  filters: readonly string[],
  options?: FullTextIndexOptions,
) => string[];

export interface FullTextIndexOptions {
  /**
   * Rows written to a hot table may be indexed later than their commit, in batches: where indexing a
   * row costs a commit much more than the row itself (SQLite's FTS5 writes a new segment per
   * transaction, about 100 µs; PostgreSQL writes a posting row and three btree entries per distinct
   * word, hundreds for a prompt), the writers' commits add the rows only, and the index takes them in
   * batches and whenever a reader runs `catchUpSql`. SQLite, one writer at a time, indexes up to an id
   * (ids commit in their order) in the commit of every 64th id; PostgreSQL, with
   * concurrent writers, queues each row's id, and the store indexes what is queued on a connection of
   * its own shortly after its writes commit (the server does it beside the writers).
   */
  deferred?: boolean;
}

/** The searchable words of a text (letters and digits, lowercased, at most 32, deduplicated). */
export function searchWords(text: string): string[] {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return [...new Set(words)].slice(0, 32);
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

export interface ListenOptions {
  /**
   * Called after the listening connection was lost and is listening again: notifications sent
   * while it was down are lost. Called once per incident, after every channel is listened to again.
   */
  onGap?: () => void;
}

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
   * Runs `fn` in one transaction without a promise: commits when it returns, rolls back when it
   * throws, and rethrows. Present only on backends whose statements are synchronous (its presence is
   * the capability); a hot path that can do its work synchronously uses it and skips the promise
   * turns of `transaction`. Returns `STORE_BUSY`, without calling `fn`, when another transaction
   * holds the connection: the caller falls back to `transaction`, so it must be able to do both.
   * `fn` must not start async work that touches the store; calling the store itself from inside `fn`
   * is a `NESTED_TRANSACTION` error, as in `transaction`.
   */
  transactionSync?<T>(fn: (tx: SyncTransaction) => T, options?: TransactionOptions): T | typeof STORE_BUSY;
  /**
   * Runs one write statement as a transaction of its own, synchronously: the database commits it as
   * it runs (autocommit), with no BEGIN and COMMIT statements around it. Present only on backends
   * whose statements are synchronous (SQLite), like `transactionSync`; as durable as a commit of
   * `transaction`. Returns `STORE_BUSY`, without running the statement, when another transaction
   * holds the connection: the caller falls back to `transaction` (or `run`). Calling it from inside
   * a transaction of this store is a `NESTED_TRANSACTION` error. `durability` as in `transaction`.
   */
  runSync?(
    sql: string,
    params?: readonly SqlValue[],
    options?: Pick<TransactionOptions, 'durability'>,
  ): RunResult | typeof STORE_BUSY;
  /**
   * Runs one write statement as a transaction of its own in one round trip: committed when it
   * resolves (or, `deferred`, visible at once and flushed by the next ordinary commit, as in
   * `transaction`), all or nothing. Present only on backends whose statements are asynchronous
   * (PostgreSQL), where a transaction of one statement otherwise costs a round trip each for BEGIN,
   * the statement and COMMIT; a backend with synchronous statements offers `runSync` instead.
   * Calling it from inside a transaction of this store is a `NESTED_TRANSACTION` error.
   */
  runAlone?(
    sql: string,
    params?: readonly SqlValue[],
    options?: Pick<TransactionOptions, 'durability'>,
  ): Promise<RunResult>;
  /**
   * Subscribes to a notification channel across processes. Present only when
   * `capabilities.supportsListenNotify`. The store keeps listening through a lost connection: it
   * reconnects with backoff, listens to every channel again, and reports the gap through
   * `options.onGap`; a handler that throws is logged, never crashes the process.
   */
  listen?(channel: string, handler: (payload: string) => void, options?: ListenOptions): Promise<Unlisten>;
  /** Names of the tables in the store's schema, sorted (the backend's catalog, read portably). */
  tableNames(): Promise<string[]>;
  /** Releases connections. Idempotent. */
  close(): Promise<void>;
}
