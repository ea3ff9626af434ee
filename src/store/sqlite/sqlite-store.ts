/** The embedded store on `node:sqlite`: one connection, WAL, cached statements, serialized transactions. */
import { NoemaError } from '../../core/errors.ts';
import { telemetry } from '../../core/telemetry.ts';
import { failedInsideTransaction } from '../failed-statement.ts';
import { Mutex } from '../mutex.ts';
import { assertNotInTransaction, nestedTransaction, runInTransactionScope } from '../nesting.ts';
import {
  type Dialect,
  type Row,
  type RunResult,
  type SqlValue,
  STORE_BUSY,
  type Store,
  type StoreCapabilities,
  type SyncTransaction,
  type Transaction,
  type TransactionOptions,
} from '../store.ts';
import { type Checkpointer, createCheckpointer } from './checkpointer.ts';
import { SQLITE_STATEMENT_CACHE, SqliteConnection } from './connection.ts';
import { sqliteFullText } from './full-text.ts';
import { enterWal, openDatabaseFile } from './open-file.ts';

export { SQLITE_STATEMENT_CACHE };

export const sqliteDialect: Dialect = {
  autoId: 'INTEGER PRIMARY KEY AUTOINCREMENT',
  growingId: 'INTEGER PRIMARY KEY',
  bigint: 'INTEGER',
  real: 'REAL',
  blob: 'BLOB',
  textBytes: (expr) => `CAST(${expr} AS BLOB)`,
  textBytesUndecoded: true,
  jsonString: (expr) => `json_quote(${expr})`,
  jsonObjectText: (columns) => `json_object(${columns.map((c) => `'${c}', ${c}`).join(', ')})`,
  jsonArrayAgg: (expr) => `json_group_array(${expr})`,
  fullText: sqliteFullText,
  // Write transactions start with BEGIN IMMEDIATE: the whole database is already locked.
  forShare: '',
  forUpdate: '',
  forUpdateSkipLocked: '',
  alterConstraints: false,
  rowTriggerDdl: ({ name, table, on, when, into, values }) => [
    `CREATE TRIGGER ${name} AFTER ${on.toUpperCase()} ON ${table} FOR EACH ROW${when ? ` WHEN ${when}` : ''} BEGIN
       INSERT INTO ${into} (${Object.keys(values).join(', ')}) VALUES (${Object.values(values).join(', ')}); END`,
  ],
  dropRowTriggerDdl: (name) => [`DROP TRIGGER IF EXISTS ${name}`],
};

const capabilities: StoreCapabilities = {
  supportsSkipLocked: false,
  supportsListenNotify: false,
  concurrentWriters: false,
};

export interface SqliteStoreOptions {
  /** File path, or `:memory:`. */
  path: string;
  /** Milliseconds to wait for another process's write lock. */
  busyTimeoutMs?: number;
  /** The setting that named `path`, for error messages (default `NOEMA_DB`). */
  setting?: string;
  /**
   * Bytes of the database file read through a memory map (`PRAGMA mmap_size`; default
   * SQLITE_MMAP_BYTES); 0 reads every page with a system call into SQLite's page cache.
   */
  mmapBytes?: number;
}

/**
 * How much of a database file SQLite reads through a memory map: a page read is then a reference
 * into the operating system's cache of the file, with no system call and no copy. A large value
 * spans many overflow pages (a world's snapshot, 0.77 MB, about 190): its row was read in 0.12 ms at
 * p50 this way against 0.44 ms page by page. SQLite still writes with system calls (the map is
 * read-only), and in WAL mode the pages of the log are read as before. A file larger than this is
 * read through the map up to it and page by page beyond. The map's pages are the file's in the
 * operating system's cache, shared, counted in the process's RSS only once touched.
 */
export const SQLITE_MMAP_BYTES = 256 * 1024 * 1024;

class SqliteTransaction implements Transaction {
  readonly dialect = sqliteDialect;
  readonly #conn: SqliteConnection;
  constructor(conn: SqliteConnection) {
    this.#conn = conn;
  }
  run(sql: string, params?: readonly SqlValue[]): Promise<RunResult> {
    return this.#conn.run(sql, params);
  }
  all<T extends Row = Row>(sql: string, params?: readonly SqlValue[]): Promise<T[]> {
    return this.#conn.all<T>(sql, params);
  }
  get<T extends Row = Row>(sql: string, params?: readonly SqlValue[]): Promise<T | undefined> {
    return this.#conn.get<T>(sql, params);
  }
  // Statements run as they are issued here: a failure or a miss throws at once. Bound to the
  // transaction (fields, not methods): a wrapper that hands them on unbound still works.
  readonly write = (sql: string, params?: readonly SqlValue[]): void => {
    this.#conn.runSync(sql, params);
  };
  readonly writeOne = (sql: string, params: readonly SqlValue[], miss: () => Error): void => {
    if (this.#conn.runSync(sql, params).changes !== 1) throw miss();
  };
  readonly writeReturning = <T extends Row = Row>(
    sql: string,
    params: readonly SqlValue[],
    rows: (rows: T[]) => void,
    miss?: () => Error,
  ): void => {
    const returned = this.#conn.allSync<T>(sql, params);
    if (miss !== undefined && returned.length !== 1) throw miss();
    rows(returned);
  };
  async notify(): Promise<void> {}
  // Write transactions hold the database's write lock from BEGIN IMMEDIATE: nothing to add.
  async lockKey(): Promise<void> {}
  async lockRows(): Promise<void> {}
}

class SqliteSyncTransaction implements SyncTransaction {
  readonly dialect = sqliteDialect;
  readonly #conn: SqliteConnection;
  constructor(conn: SqliteConnection) {
    this.#conn = conn;
  }
  run(sql: string, params?: readonly SqlValue[]): RunResult {
    return this.#conn.runSync(sql, params);
  }
  all<T extends Row = Row>(sql: string, params?: readonly SqlValue[]): T[] {
    return this.#conn.allSync<T>(sql, params);
  }
  get<T extends Row = Row>(sql: string, params?: readonly SqlValue[]): T | undefined {
    return this.#conn.getSync<T>(sql, params);
  }
}

// Connections to the same file in one process share a mutex: a second connection's
// synchronous busy-wait would otherwise block the event loop the lock holder needs.
const fileMutexes = new Map<string, Mutex>();

function mutexFor(path: string): Mutex {
  if (path === ':memory:') return new Mutex();
  let m = fileMutexes.get(path);
  if (!m) {
    m = new Mutex();
    fileMutexes.set(path, m);
  }
  return m;
}

export class SqliteStore implements Store {
  readonly dialect = sqliteDialect;
  readonly capabilities = capabilities;
  readonly location: string;
  readonly #conn: SqliteConnection;
  /** The one handle every transaction gets: transactions on the connection never overlap. */
  readonly #tx: SqliteTransaction;
  readonly #syncTx: SqliteSyncTransaction;
  /**
   * Set while a `transactionSync` callback runs. It cannot await, so the flag covers exactly the
   * code inside it: no AsyncLocalStorage scope is needed to refuse a nested call.
   */
  #inSyncTransaction = false;
  readonly #mutex: Mutex;
  readonly #checkpointer: Checkpointer | null = null;
  readonly #busyTimeoutMs: number;
  #closed = false;

  constructor(options: SqliteStoreOptions) {
    this.location = options.path;
    this.#mutex = mutexFor(options.path);
    const db = openDatabaseFile(options.path, options.setting ?? 'NOEMA_DB');
    this.#conn = new SqliteConnection(db);
    this.#tx = new SqliteTransaction(this.#conn);
    this.#syncTx = new SqliteSyncTransaction(this.#conn);
    const busyTimeoutMs = Math.trunc(options.busyTimeoutMs ?? 10_000);
    this.#busyTimeoutMs = busyTimeoutMs;
    this.#conn.exec(`PRAGMA busy_timeout = ${busyTimeoutMs}`);
    try {
      enterWal(db, busyTimeoutMs);
    } catch (err) {
      db.close();
      throw err;
    }
    this.#conn.exec('PRAGMA synchronous = NORMAL');
    this.#conn.exec('PRAGMA foreign_keys = ON');
    const mmap = options.mmapBytes ?? SQLITE_MMAP_BYTES;
    this.#conn.exec(`PRAGMA mmap_size = ${Number.isFinite(mmap) ? Math.max(0, Math.trunc(mmap)) : 0}`);
    if (options.path !== ':memory:') {
      // Checkpoints run in a worker thread (see checkpointer.ts), not inside a COMMIT.
      this.#conn.exec('PRAGMA wal_autocheckpoint = 0');
      this.#checkpointer = createCheckpointer(options.path, busyTimeoutMs, {
        restart: () => void this.#completeCopy(),
        fallback: () => this.#conn.exec('PRAGMA wal_autocheckpoint = 1000'),
      });
    }
  }

  /** How many prepared statements the connection holds (at most SQLITE_STATEMENT_CACHE); for tests. */
  get cachedStatements(): number {
    return this.#conn.cachedStatements;
  }

  async run(sql: string, params?: readonly SqlValue[]): Promise<RunResult> {
    return this.#outsideTransaction(() => {
      const r = this.#conn.run(sql, params);
      this.#committed();
      return r;
    });
  }

  // `durability` changes nothing here, as in `transaction`.
  runSync(
    sql: string,
    params?: readonly SqlValue[],
    _options?: TransactionOptions,
  ): RunResult | typeof STORE_BUSY {
    if (this.#inSyncTransaction) throw nestedTransaction();
    this.#assertOpen();
    // As in transactionSync: a held mutex is another transaction in flight, or a nested call.
    if (this.#mutex.locked) {
      assertNotInTransaction(this);
      return STORE_BUSY;
    }
    // Autocommit: SQLite takes the write lock, writes and commits within the statement itself.
    const r = this.#conn.runSync(sql, params);
    this.#committed();
    return r;
  }

  async all<T extends Row = Row>(sql: string, params?: readonly SqlValue[]): Promise<T[]> {
    return this.#outsideTransaction(() => this.#conn.all<T>(sql, params));
  }

  async get<T extends Row = Row>(sql: string, params?: readonly SqlValue[]): Promise<T | undefined> {
    return this.#outsideTransaction(() => this.#conn.get<T>(sql, params));
  }

  async transaction<T>(fn: (tx: Transaction) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
    this.#assertNotNested();
    this.#assertOpen();
    // The free lock is taken synchronously: a step's commit should not wait a turn for nothing.
    if (!this.#mutex.tryAcquire()) await this.#mutex.acquire();
    try {
      this.#begin(options);
      try {
        const result = await runInTransactionScope(this, fn, this.#tx);
        this.#commit(options);
        return result;
      } catch (err) {
        this.#rollback();
        throw err;
      } finally {
        if (options.mode === 'read') this.#conn.endRead();
      }
    } finally {
      this.#mutex.release();
    }
  }

  transactionSync<T>(
    fn: (tx: SyncTransaction) => T,
    options: TransactionOptions = {},
  ): T | typeof STORE_BUSY {
    if (this.#inSyncTransaction) throw nestedTransaction();
    if (this.#closed) throw storeClosed();
    // A free mutex means no transaction of this store is open, so its async scope need not be
    // looked up; a held one is another transaction in flight (the caller waits its turn) or
    // this store's own, which is a nested call.
    if (!this.#mutex.tryAcquire()) {
      assertNotInTransaction(this);
      return STORE_BUSY;
    }
    const write = options.mode !== 'read';
    try {
      if (write) this.#conn.beginImmediate();
      else this.#conn.beginRead();
      this.#inSyncTransaction = true;
      try {
        const result = fn(this.#syncTx);
        this.#inSyncTransaction = false;
        this.#assertNoFailure();
        // `#commit`, without looking the options up again.
        if (telemetry()?.storeCommit) this.#commitTimed();
        else this.#conn.commit();
        if (write) this.#committed();
        return result;
      } catch (err) {
        this.#inSyncTransaction = false;
        this.#rollback();
        throw err;
      } finally {
        if (!write) this.#conn.endRead();
      }
    } finally {
      this.#mutex.release();
    }
  }

  #begin(options: TransactionOptions): void {
    if (options.mode === 'read') this.#conn.beginRead();
    else this.#conn.beginImmediate();
  }

  #commit(options: TransactionOptions): void {
    this.#assertNoFailure();
    if (telemetry()?.storeCommit) this.#commitTimed();
    else this.#conn.commit();
    if (options.mode !== 'read') this.#committed();
  }

  /** Before a COMMIT: a statement the callback saw fail (and went on) fails the transaction. */
  #assertNoFailure(): void {
    const failure = this.#conn.failure;
    if (failure !== null) throw failedInsideTransaction(failure);
  }

  /** COMMIT, timed for the telemetry observer. */
  #commitTimed(): void {
    const t0 = performance.now();
    this.#conn.commit();
    reportCommit(t0);
  }

  /**
   * After a failed callback or COMMIT: SQLite may already have rolled back, so only an open
   * transaction is rolled back — the single connection is never left inside one, and the caller
   * rethrows its original error.
   */
  #rollback(): void {
    if (this.#conn.inTransaction) this.#conn.control('ROLLBACK');
  }

  async tableNames(): Promise<string[]> {
    const rows = await this.all<{ name: string }>(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY 1",
    );
    return rows.map((r) => r.name);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    await this.#mutex.acquire();
    this.#closed = true;
    // The worker's connection closes first, so this one is the last and checkpoints on close.
    await this.#checkpointer?.close();
    this.#conn.close();
    this.#mutex.release();
  }

  /** After a write commit, under the mutex: counts it, and checkpoints inline when the worker cannot keep up. */
  #committed(): void {
    if (!this.#checkpointer?.committed()) return;
    // Inline: the worker may be mid-checkpoint, and a thread that has not turned its event loop
    // cannot hear it finish; wait for it (as SQLite's own checkpoint would block this commit),
    // so the log is bounded however slow the worker's copy is.
    if (!this.#checkpoint()) {
      this.#checkpointer.awaitWorkerCheckpoint(this.#busyTimeoutMs);
      this.#checkpoint();
    }
  }

  /** A PASSIVE checkpoint on this connection; false when another checkpoint held the file. */
  #checkpoint(): boolean {
    try {
      const r = this.#conn.statement('PRAGMA wal_checkpoint(PASSIVE)').get() as { busy: number };
      // Busy: the worker is mid-checkpoint; the next commit tries again.
      if (Number(r.busy) !== 0) return false;
      this.#checkpointer?.checkpointed();
      return true;
    } catch {
      // A busy file: the next commit tries again.
      return false;
    }
  }

  /**
   * Completes a copy of the log the worker could not (commits raced it): with the mutex held no
   * commit runs, so the worker's checkpoint reaches the log's end and the next commit restarts
   * the log. Transactions wait for it without blocking the event loop; where the worker cannot,
   * this connection copies the log itself, between transactions.
   */
  async #completeCopy(): Promise<void> {
    if (this.#closed) return;
    await this.#mutex.acquire();
    try {
      if (!this.#closed && !(await this.#checkpointer!.completeCopy())) this.#checkpoint();
    } finally {
      this.#mutex.release();
    }
  }

  async #outsideTransaction<T>(op: () => Promise<T>): Promise<T> {
    this.#assertNotNested();
    this.#assertOpen();
    // Statements are synchronous, so a free mutex means no transaction can interleave.
    if (!this.#mutex.locked) return op();
    await this.#mutex.acquire();
    try {
      return await op();
    } finally {
      this.#mutex.release();
    }
  }

  /** A store call from inside one of its own transactions (async scope or sync callback) would deadlock. */
  #assertNotNested(): void {
    if (this.#inSyncTransaction) throw nestedTransaction();
    assertNotInTransaction(this);
  }

  #assertOpen(): void {
    if (this.#closed) throw storeClosed();
  }
}

/** Tells the telemetry observer how long a COMMIT took; its failure never reaches the store. */
function reportCommit(t0: number): void {
  try {
    telemetry()?.storeCommit?.((performance.now() - t0) / 1000);
  } catch {}
}

function storeClosed(): NoemaError {
  return new NoemaError('STORE_CLOSED', 'the store is closed');
}
