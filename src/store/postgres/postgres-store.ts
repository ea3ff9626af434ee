/**
 * The scale-out store on PostgreSQL through a `pg` pool: prepared statements, LISTEN/NOTIFY, SKIP LOCKED,
 * and pipelined connections (statements issued together travel together).
 */
import pg from 'pg';
import { NoemaError } from '../../core/errors.ts';
import { incidentLog } from '../../core/incident-log.ts';
import { telemetry } from '../../core/telemetry.ts';
import { assertNotInTransaction, runInTransactionScope } from '../nesting.ts';
import { redactUrl } from '../redact-url.ts';
import type {
  Dialect,
  ListenOptions,
  Queryable,
  Row,
  RunResult,
  SqlValue,
  Store,
  StoreCapabilities,
  Transaction,
  TransactionOptions,
  Unlisten,
} from '../store.ts';
import { advisoryLockKey } from './advisory-lock.ts';
import { BACKGROUND_INDEX_AFTER_MS, BackgroundIndex } from './background-index.ts';
import { coalesceWrites } from './coalesced-writes.ts';
import { type AtCommit, commitWith, StatementFailures } from './commit.ts';
import { connectError } from './connect-error.ts';
import { postgresFullText } from './full-text.ts';
import { exactlyOneReturned, exactlyOneRow, IssuedWrites, withoutCheck } from './issued-writes.ts';
import { PostgresListener } from './listener.ts';
import { notifySql } from './notify-sql.ts';
import { exec, query, submit } from './statements.ts';
import { translatePostgresError } from './translate-error.ts';

// BIGINT (int8) and NUMERIC counts come back as numbers: every id and timestamp Noema stores fits in 2^53.
pg.types.setTypeParser(20, (v) => Number(v));

export const postgresDialect: Dialect = {
  autoId: 'BIGSERIAL PRIMARY KEY',
  growingId: 'BIGSERIAL PRIMARY KEY',
  bigint: 'BIGINT',
  real: 'DOUBLE PRECISION',
  blob: 'BYTEA',
  fullText: postgresFullText,
  forShare: ' FOR SHARE',
  forUpdate: ' FOR UPDATE',
  forUpdateSkipLocked: ' FOR UPDATE SKIP LOCKED',
  alterConstraints: true,
  // `pg` decodes every field of a row to a string before any type parser sees it (bytea arrives as
  // hex text), so the text as it is costs least.
  textBytes: (expr) => expr,
  textBytesUndecoded: false,
  jsonString: (expr) => `COALESCE(to_json(${expr}::text)::text, 'null')`,
  jsonObjectText: (columns) =>
    `'{' || ${columns.map((c, i) => `'${i > 0 ? ',' : ''}"${c}":' || ${postgresDialect.jsonString(c)}`).join(' || ')} || '}'`,
  jsonArrayAgg: (expr) => `COALESCE(json_agg(${expr})::text, '[]')`,
  // A row trigger runs a function; the condition goes in the trigger's WHEN, so a row it excludes
  // calls nothing.
  rowTriggerDdl: ({ name, table, on, when, into, values }) => [
    `CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO ${into} (${Object.keys(values).join(', ')}) VALUES (${Object.values(values).join(', ')}); RETURN NULL; END $$`,
    `CREATE TRIGGER ${name} AFTER ${on.toUpperCase()} ON ${table} FOR EACH ROW${when ? ` WHEN (${when})` : ''} EXECUTE FUNCTION ${name}()`,
  ],
  dropRowTriggerDdl: (name, table) => [
    `DROP TRIGGER IF EXISTS ${name} ON ${table}`,
    `DROP FUNCTION IF EXISTS ${name}()`,
  ],
};

const capabilities: StoreCapabilities = {
  supportsSkipLocked: true,
  supportsListenNotify: true,
  concurrentWriters: true,
};

export interface PostgresStoreOptions {
  url: string;
  /** Pool size. */
  max?: number;
  /** The setting that named `url`, for error messages (default `NOEMA_DB`). */
  setting?: string;
  /**
   * Milliseconds from a write to the batch of the deferred full-text indexes' queues the store takes
   * in the background (default BACKGROUND_INDEX_AFTER_MS); null: none (readers' catch-ups only).
   */
  backgroundIndexAfterMs?: number | null;
}

class PostgresQueryable implements Omit<Queryable, 'dialect'> {
  protected readonly client: pg.Pool | pg.PoolClient;
  constructor(client: pg.Pool | pg.PoolClient) {
    this.client = client;
  }
  /** The connection a statement is sent on (a transaction's refuses once the transaction ended). */
  protected conn(): pg.Pool | pg.PoolClient {
    return this.client;
  }
  async run(sql: string, params: readonly SqlValue[] = []): Promise<RunResult> {
    const r = await this.exec(sql, params);
    return { changes: r.rowCount ?? 0 };
  }
  async all<T extends Row = Row>(sql: string, params: readonly SqlValue[] = []): Promise<T[]> {
    return (await this.exec(sql, params)).rows as T[];
  }
  async get<T extends Row = Row>(sql: string, params: readonly SqlValue[] = []): Promise<T | undefined> {
    return (await this.exec(sql, params)).rows[0] as T | undefined;
  }
  protected exec(sql: string, params: readonly SqlValue[]): Promise<pg.QueryResult> {
    return exec(this.conn(), sql, params);
  }
}

class PostgresTransaction extends PostgresQueryable implements Transaction {
  readonly dialect = postgresDialect;
  #ended = false;
  /** A statement the server refused aborts the transaction: one that failed cannot commit. */
  readonly failures = new StatementFailures();
  protected override async exec(sql: string, params: readonly SqlValue[]): Promise<pg.QueryResult> {
    try {
      return await exec(this.conn(), sql, params);
    } catch (err) {
      this.failures.saw(err);
      throw err;
    }
  }
  /**
   * The transaction committed or rolled back: a statement issued on it later (work still running
   * after its transaction failed early) is refused, not sent on a pooled connection that may by then
   * be in another caller's transaction.
   */
  end(): void {
    this.#ended = true;
  }
  protected override conn(): pg.PoolClient {
    if (this.#ended)
      throw new NoemaError('INTERNAL', 'a statement was issued on a transaction that has ended', {
        hint: 'await every statement of a transaction before its callback returns',
      });
    return this.client as pg.PoolClient;
  }
  /**
   * In a savepoint, sent as one simple-protocol round trip: a refused notification (payload too
   * large, pg_notify failing) rolls back to the savepoint and rejects, and the transaction goes on.
   */
  async notify(channel: string, payload: string): Promise<void> {
    const sql = `SAVEPOINT noema_notify; ${notifySql(channel, payload)}; RELEASE SAVEPOINT noema_notify`;
    try {
      await this.conn().query(sql);
    } catch (err) {
      await this.conn()
        .query('ROLLBACK TO SAVEPOINT noema_notify; RELEASE SAVEPOINT noema_notify')
        .catch(() => {});
      throw translatePostgresError(err);
    }
  }
  notifyWithCommit(channel: string, payload: string, settled?: (refused: Error | null) => void): void {
    this.atCommit.push({
      sql: notifySql(channel, payload),
      settled,
    });
  }
  /** What `notifyWithCommit` queued, sent by the store with the COMMIT. */
  readonly atCommit: AtCommit[] = [];
  /** The statements `write` and `writeOne` issued, settled (never rejecting): awaited after the COMMIT is sent. */
  readonly issued = new IssuedWrites(this.failures);
  // Bound to the transaction (fields, not methods): a wrapper that hands them on unbound still works.
  readonly write = (sql: string, params: readonly SqlValue[] = []): void => {
    this.issued.add(this.exec(sql, params));
  };
  readonly writeOne = (sql: string, params: readonly SqlValue[], miss: () => Error): void => {
    this.issued.add(this.exec(exactlyOneRow(sql), params), miss);
  };
  readonly writeReturning = <T extends Row = Row>(
    sql: string,
    params: readonly SqlValue[],
    rows: (rows: T[]) => void,
    miss?: () => Error,
  ): void => {
    if (miss === undefined) {
      this.issued.add(this.exec(sql, params).then((r) => rows(r.rows as T[])));
      return;
    }
    this.issued.add(
      this.exec(exactlyOneReturned(sql), params).then((r) => rows(withoutCheck(r.rows) as T[])),
      miss,
    );
  };
  async lockKey(scope: string): Promise<void> {
    await this.exec('SELECT pg_advisory_xact_lock(?)', [advisoryLockKey(scope)]);
  }
  async lockRows(
    select: string,
    params: readonly SqlValue[] = [],
    mode: 'update' | 'share' = 'update',
  ): Promise<void> {
    await this.exec(
      select + (mode === 'share' ? postgresDialect.forShare : postgresDialect.forUpdate),
      params,
    );
  }
}

export class PostgresStore extends PostgresQueryable implements Store {
  readonly dialect = postgresDialect;
  readonly capabilities = capabilities;
  readonly location: string;
  readonly #pool: pg.Pool;
  readonly #listener: PostgresListener;
  readonly #index: BackgroundIndex;
  #closed = false;

  private constructor(pool: pg.Pool, url: string, indexAfterMs: number | null) {
    super(pool);
    this.#pool = pool;
    this.location = redactUrl(url);
    this.#listener = new PostgresListener(url, this.location);
    this.#index = new BackgroundIndex({
      run: async (sql) => void (await this.#runDeferred(sql, [])),
      // On the pool directly, past the checks a caller's statement gets: a timer starts the batch.
      all: async (sql) => (await exec(pool, sql, [])).rows,
      log: incidentLog(`PostgreSQL at ${this.location}: a batch of the full-text indexes' queues`),
      afterMs: indexAfterMs,
    });
  }

  /** Connects (and checks the server answers) before returning. */
  static async connect(options: PostgresStoreOptions): Promise<PostgresStore> {
    const pool = new pg.Pool({
      connectionString: options.url,
      max: options.max ?? 10,
      connectionTimeoutMillis: 5_000,
      // A statement is sent when it is issued, not when the one before it has answered: the
      // statements a transaction issues before awaiting them share one round trip (see Transaction).
      pipeline: true,
    });
    // An idle client dying (server restart) must not crash the process; the pool replaces it.
    const poolLog = incidentLog(`PostgreSQL pool at ${redactUrl(options.url)}: an idle connection`);
    pool.on('error', (err) => poolLog.fail(err));
    pool.on('connect', (client) => {
      poolLog.ok();
      coalesceWrites(client);
    });
    try {
      await pool.query('SELECT 1');
    } catch (err) {
      await pool.end().catch(() => {});
      throw connectError(err, options.url, options.setting ?? 'NOEMA_DB');
    }
    return new PostgresStore(
      pool,
      options.url,
      options.backgroundIndexAfterMs === undefined
        ? BACKGROUND_INDEX_AFTER_MS
        : options.backgroundIndexAfterMs,
    );
  }

  override async run(sql: string, params?: readonly SqlValue[]): Promise<RunResult> {
    assertNotInTransaction(this);
    const r = await super.run(sql, params);
    this.#index.wrote();
    return r;
  }

  override async all<T extends Row = Row>(sql: string, params?: readonly SqlValue[]): Promise<T[]> {
    assertNotInTransaction(this);
    return super.all<T>(sql, params);
  }

  override async get<T extends Row = Row>(sql: string, params?: readonly SqlValue[]): Promise<T | undefined> {
    assertNotInTransaction(this);
    return super.get<T>(sql, params);
  }

  /** A pooled connection, listened to for its death (`dead`) from the moment the pool hands it over. */
  #checkOut(dead: () => void): Promise<pg.PoolClient> {
    return new Promise<pg.PoolClient>((resolve, reject) =>
      this.#pool.connect((err, c) => {
        if (err || !c)
          return reject(translatePostgresError(err ?? new Error('the pool handed over no connection')));
        c.on('error', dead);
        resolve(c);
      }),
    );
  }

  async runAlone(
    sql: string,
    params: readonly SqlValue[] = [],
    options: Pick<TransactionOptions, 'durability'> = {},
  ): Promise<RunResult> {
    assertNotInTransaction(this);
    const observed = telemetry()?.storeCommit;
    const t0 = observed ? performance.now() : 0;
    const r =
      options.durability === 'deferred'
        ? await this.#runDeferred(sql, params)
        : // Outside a transaction a statement commits as it runs (autocommit).
          { changes: (await exec(this.#pool, sql, params)).rowCount ?? 0 };
    if (observed) {
      try {
        observed((performance.now() - t0) / 1000);
      } catch {}
    }
    this.#index.wrote();
    return r;
  }

  /**
   * The statement between a BEGIN that defers the flush and its COMMIT, all three sent at once on
   * the pipelined connection: one round trip. A failing statement leaves the transaction aborted and
   * its COMMIT rolls it back.
   */
  async #runDeferred(sql: string, params: readonly SqlValue[]): Promise<RunResult> {
    let broken = false;
    const dead = () => {
      broken = true;
    };
    const client = await this.#checkOut(dead);
    try {
      const [begin, statement, commit] = await Promise.allSettled([
        client.query('BEGIN; SET LOCAL synchronous_commit = off'),
        submit(client, query(sql, params)),
        client.query('COMMIT'),
      ]);
      // The transaction's own ends failing leave the connection in a state not worth keeping.
      broken ||= begin.status === 'rejected' || commit.status === 'rejected';
      if (begin.status === 'rejected') throw begin.reason;
      if (statement.status === 'rejected') throw statement.reason;
      if (commit.status === 'rejected') throw commit.reason;
      // A COMMIT of an aborted transaction answers ROLLBACK without an error.
      if (commit.value.command !== 'COMMIT') throw new Error(`COMMIT answered ${commit.value.command}`);
      return { changes: statement.value.rowCount ?? 0 };
    } catch (err) {
      throw translatePostgresError(err);
    } finally {
      client.removeListener('error', dead);
      client.release(broken);
    }
  }

  async transaction<T>(fn: (tx: Transaction) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
    assertNotInTransaction(this);
    let broken = false;
    // A connection that dies while checked out between two statements (the server ended it: a restart,
    // pg_terminate_backend) is reported by an 'error' event that the pool listens to only while the
    // connection is idle: unheard, it would end the process. The next statement fails instead. The
    // listener is added as the pool hands the connection over, in its callback: a new connection's
    // "ready" and the server's "terminating" can arrive in one read, before a promise's continuation.
    const dead = () => {
      broken = true;
    };
    const client = await this.#checkOut(dead);
    const tx = new PostgresTransaction(client);
    try {
      // Not awaited: the BEGIN travels with the transaction's first statement on the pipelined
      // connection (a simple-protocol query may carry both of its statements), one round trip less.
      // Its answer is checked before the COMMIT or ROLLBACK; it fails only with its connection,
      // which fails the statements queued behind it too (as #runDeferred relies on).
      const begin = client.query(
        options.mode === 'read'
          ? 'BEGIN READ ONLY'
          : options.durability === 'deferred'
            ? 'BEGIN; SET LOCAL synchronous_commit = off'
            : 'BEGIN',
      );
      begin.catch(() => {});
      let result: T;
      try {
        result = await runInTransactionScope(this, () => fn(tx));
      } catch (err) {
        await begin.catch(() => {
          broken = true;
        });
        // A write the server refused is the cause of what the callback met after it (25P02).
        const cause = await tx.issued.cause();
        await client.query('ROLLBACK').catch(() => {
          broken = true;
        });
        throw cause ?? err;
      }
      // Sent without waiting for the BEGIN's answer, which travels with the statements: a callback
      // that waited for none commits in one round trip. The BEGIN fails only with its connection,
      // which fails the COMMIT too; its error is then the one reported.
      const committing = tx.issued.settledWith(commitWith(client, tx.atCommit, tx.failures));
      committing.catch(() => {});
      try {
        await begin;
      } catch (err) {
        broken = true;
        await committing.catch(() => {});
        throw err;
      }
      await committing;
      if (options.mode !== 'read') this.#index.wrote();
      return result;
    } catch (err) {
      throw translatePostgresError(err);
    } finally {
      tx.end();
      client.removeListener('error', dead);
      client.release(broken);
    }
  }

  async tableNames(): Promise<string[]> {
    const rows = await this.all<{ name: string }>(
      // Tables only, as on SQLite: a view is not a table (`llm_calls` is one).
      `SELECT table_name AS name FROM information_schema.tables
        WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY 1`,
    );
    return rows.map((r) => r.name);
  }

  listen(channel: string, handler: (payload: string) => void, options?: ListenOptions): Promise<Unlisten> {
    return this.#listener.listen(channel, handler, options);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#index.close();
    await this.#listener.close();
    await endPool(this.#pool);
  }
}

/**
 * Ends the pool and waits (at most 2 s) until each of its connections has closed: `pool.end()`
 * answers once none is left in the pool, before their sockets have closed, and a connection the server
 * ends meanwhile (a database dropped right after the store closed) would report an error as an idle
 * connection's.
 */
async function endPool(pool: pg.Pool): Promise<void> {
  let open = pool.totalCount;
  let timer: NodeJS.Timeout | undefined;
  const closed = new Promise<void>((resolve) => {
    if (open === 0) return resolve();
    pool.on('remove', () => {
      if (--open === 0) resolve();
    });
    timer = setTimeout(resolve, 2_000);
  });
  await pool.end();
  await closed;
  clearTimeout(timer);
}
