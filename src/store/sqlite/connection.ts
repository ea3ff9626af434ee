/**
 * Statement execution on one node:sqlite connection: prepared statements in an LRU, parameters bound
 * as node:sqlite takes them (and checked storable), errors translated. Shared by the SQLite store and
 * its transactions.
 */
import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite';
import { LruMap } from '../../core/lru.ts';
import { writeInReadTransaction } from '../failed-statement.ts';
import { assertStorableParams, isStorableText } from '../params.ts';
import type { Queryable, Row, RunResult, SqlValue } from '../store.ts';
import { translateSqliteError } from './translate-error.ts';

/** SQLite's primary result code for a write it refused because the connection is read-only. */
const SQLITE_READONLY = 8;

/**
 * Parameters as node:sqlite takes them: booleans as 0/1; the caller's array itself when it has none.
 * One pass for the storable-text check too (it runs for every statement).
 */
function bind(params: readonly SqlValue[]): readonly SQLInputValue[] {
  let out: SQLInputValue[] | null = null;
  for (let i = 0; i < params.length; i++) {
    const p = params[i];
    if (typeof p === 'string') {
      if (!isStorableText(p)) assertStorableParams(params);
    } else if (typeof p === 'boolean') {
      out ??= params.slice() as SQLInputValue[];
      out[i] = p ? 1 : 0;
    }
  }
  return out ?? (params as readonly SQLInputValue[]);
}

const NO_PARAMS: readonly SqlValue[] = [];

/**
 * Prepared statements kept per connection. SQL can vary with its input (an `IN (?, …)` list per
 * length), so the cache is an LRU: hot statements stay prepared, the rest are prepared again.
 */
export const SQLITE_STATEMENT_CACHE = 500;

/** Statement execution on the raw connection; shared by the store and its transactions. */
export class SqliteConnection implements Omit<Queryable, 'dialect'> {
  readonly #db: DatabaseSync;
  readonly #statements = new LruMap<string, StatementSync>(SQLITE_STATEMENT_CACHE);
  // The statement used last, ahead of the LRU: a loop repeating one statement (a run appending its
  // journal) skips the LRU's reordering. It may outlive its eviction from the LRU, which is harmless.
  #lastSql = '';
  #lastStmt: StatementSync | null = null;
  /** Transaction control, prepared once: exec() would parse it on every transaction. */
  readonly #control = new Map<string, StatementSync>();

  get cachedStatements(): number {
    return this.#statements.size;
  }

  constructor(db: DatabaseSync) {
    this.#db = db;
  }

  statement(sql: string): StatementSync {
    if (sql === this.#lastSql && this.#lastStmt) return this.#lastStmt;
    let stmt = this.#statements.get(sql);
    if (!stmt) {
      stmt = this.#db.prepare(sql);
      this.#statements.set(sql, stmt);
    }
    this.#lastSql = sql;
    this.#lastStmt = stmt;
    return stmt;
  }

  exec(sql: string): void {
    try {
      this.#db.exec(sql);
    } catch (err) {
      throw this.#failed(err);
    }
  }

  /**
   * The first statement SQLite refused since the last BEGIN (its translated error), or null: a
   * transaction holding one cannot commit (`../failed-statement.ts`). Parameters refused before
   * SQLite saw them do not count, as PostgreSQL never sees them either.
   */
  #failure: unknown = null;
  get failure(): unknown {
    return this.#failure;
  }

  #failed(err: unknown): unknown {
    const e =
      this.#readOnly && ((err as { errcode?: unknown }).errcode as number) === SQLITE_READONLY
        ? writeInReadTransaction(err)
        : translateSqliteError(err);
    if (this.#failure === null && (err as { code?: unknown } | null)?.code === 'ERR_SQLITE_ERROR')
      this.#failure = e;
    return e;
  }

  /** Whether writes are refused now (`beginRead` to `endRead`). */
  #readOnly = false;

  /**
   * `BEGIN DEFERRED` for a read transaction, its writes refused until `endRead` (`PRAGMA
   * query_only`), as PostgreSQL's `BEGIN READ ONLY` refuses them.
   */
  beginRead(): void {
    this.control('BEGIN DEFERRED');
    this.control('PRAGMA query_only = 1');
    this.#readOnly = true;
  }

  /** After a read transaction's COMMIT or ROLLBACK: writes are accepted again. */
  endRead(): void {
    this.#readOnly = false;
    this.control('PRAGMA query_only = 0');
  }

  /**
   * Runs a transaction-control statement (BEGIN/COMMIT/ROLLBACK), prepared once per connection.
   * Through `get()`, which returns nothing for a statement without rows: `run()` would build a
   * `{ changes, lastInsertRowid }` object twice per transaction that nobody reads.
   */
  control(
    sql:
      | 'BEGIN IMMEDIATE'
      | 'BEGIN DEFERRED'
      | 'COMMIT'
      | 'ROLLBACK'
      | 'PRAGMA query_only = 1'
      | 'PRAGMA query_only = 0',
  ): void {
    try {
      let stmt = this.#control.get(sql);
      if (!stmt) {
        stmt = this.#db.prepare(sql);
        this.#control.set(sql, stmt);
      }
      if (sql.startsWith('BEGIN')) this.#failure = null;
      stmt.get();
    } catch (err) {
      throw translateSqliteError(err);
    }
  }

  /** `BEGIN IMMEDIATE` and `COMMIT`, a write transaction's ends, kept apart from `control`'s map. */
  #beginImmediate: StatementSync | null = null;
  #commit: StatementSync | null = null;

  /** `control('BEGIN IMMEDIATE')`: every write transaction runs it, so it skips the map lookup. */
  beginImmediate(): void {
    try {
      this.#beginImmediate ??= this.#db.prepare('BEGIN IMMEDIATE');
      this.#failure = null;
      this.#beginImmediate.get();
    } catch (err) {
      throw translateSqliteError(err);
    }
  }

  /** `control('COMMIT')`, as `beginImmediate`. */
  commit(): void {
    try {
      this.#commit ??= this.#db.prepare('COMMIT');
      this.#commit.get();
    } catch (err) {
      throw translateSqliteError(err);
    }
  }

  get inTransaction(): boolean {
    return this.#db.isTransaction;
  }

  runSync(sql: string, params: readonly SqlValue[] = NO_PARAMS): RunResult {
    try {
      const r = this.statement(sql).run(...bind(params));
      // node:sqlite's own result, with `changes` as a number (it is one unless BigInts were asked for).
      if (typeof r.changes !== 'number') r.changes = Number(r.changes);
      return r as RunResult;
    } catch (err) {
      throw this.#failed(err);
    }
  }

  allSync<T extends Row = Row>(sql: string, params: readonly SqlValue[] = NO_PARAMS): T[] {
    try {
      return this.statement(sql).all(...bind(params)) as T[];
    } catch (err) {
      throw this.#failed(err);
    }
  }

  getSync<T extends Row = Row>(sql: string, params: readonly SqlValue[] = NO_PARAMS): T | undefined {
    try {
      return this.statement(sql).get(...bind(params)) as T | undefined;
    } catch (err) {
      throw this.#failed(err);
    }
  }

  async run(sql: string, params?: readonly SqlValue[]): Promise<RunResult> {
    return this.runSync(sql, params);
  }

  async all<T extends Row = Row>(sql: string, params?: readonly SqlValue[]): Promise<T[]> {
    return this.allSync<T>(sql, params);
  }

  async get<T extends Row = Row>(sql: string, params?: readonly SqlValue[]): Promise<T | undefined> {
    return this.getSync<T>(sql, params);
  }

  close(): void {
    this.#statements.clear();
    this.#control.clear();
    this.#beginImmediate = null;
    this.#commit = null;
    this.#lastStmt = null;
    this.#db.close();
  }
}
