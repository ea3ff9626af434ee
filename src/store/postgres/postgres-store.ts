/** The scale-out store on PostgreSQL through a `pg` pool: prepared statements, LISTEN/NOTIFY, SKIP LOCKED. */
import { createHash } from 'node:crypto';
import pg from 'pg';
import { NoemaError } from '../../core/errors.ts';
import { assertNotInTransaction, runInTransactionScope } from '../nesting.ts';
import { redactUrl } from '../redact-url.ts';
import type {
  Dialect,
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
import { toPostgresPlaceholders } from './placeholders.ts';
import { translatePostgresError } from './translate-error.ts';

// BIGINT (int8) and NUMERIC counts come back as numbers: every id and timestamp Noema stores fits in 2^53.
pg.types.setTypeParser(20, (v) => Number(v));

export const postgresDialect: Dialect = {
  name: 'postgres',
  autoId: 'BIGSERIAL PRIMARY KEY',
  bigint: 'BIGINT',
  real: 'DOUBLE PRECISION',
  blob: 'BYTEA',
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
}

const statementNames = new Map<string, string>();

function query(text: string, params: readonly SqlValue[]): pg.QueryConfig {
  const sql = toPostgresPlaceholders(text);
  let name = statementNames.get(sql);
  if (name === undefined) {
    name = `n_${createHash('sha1').update(sql).digest('hex').slice(0, 24)}`;
    statementNames.set(sql, name);
  }
  const values = params.map((p) => (p === true ? 1 : p === false ? 0 : p));
  return { name, text: sql, values };
}

async function exec(client: pg.Pool | pg.PoolClient, sql: string, params: readonly SqlValue[]) {
  try {
    return await client.query(query(sql, params));
  } catch (err) {
    throw translatePostgresError(err);
  }
}

class PostgresQueryable implements Queryable {
  protected readonly client: pg.Pool | pg.PoolClient;
  constructor(client: pg.Pool | pg.PoolClient) {
    this.client = client;
  }
  async run(sql: string, params: readonly SqlValue[] = []): Promise<RunResult> {
    const r = await exec(this.client, sql, params);
    return { changes: r.rowCount ?? 0 };
  }
  async all<T extends Row = Row>(sql: string, params: readonly SqlValue[] = []): Promise<T[]> {
    return (await exec(this.client, sql, params)).rows as T[];
  }
  async get<T extends Row = Row>(sql: string, params: readonly SqlValue[] = []): Promise<T | undefined> {
    return (await exec(this.client, sql, params)).rows[0] as T | undefined;
  }
}

class PostgresTransaction extends PostgresQueryable implements Transaction {
  async notify(channel: string, payload: string): Promise<void> {
    await exec(this.client, 'SELECT pg_notify(?, ?)', [channel, payload]);
  }
}

export class PostgresStore extends PostgresQueryable implements Store {
  readonly dialect = postgresDialect;
  readonly capabilities = capabilities;
  readonly location: string;
  readonly #pool: pg.Pool;
  #listener: pg.PoolClient | null = null;
  readonly #handlers = new Map<string, Set<(payload: string) => void>>();
  #closed = false;

  private constructor(pool: pg.Pool, url: string) {
    super(pool);
    this.#pool = pool;
    this.location = redactUrl(url);
  }

  /** Connects (and checks the server answers) before returning. */
  static async connect(options: PostgresStoreOptions): Promise<PostgresStore> {
    const pool = new pg.Pool({
      connectionString: options.url,
      max: options.max ?? 10,
      connectionTimeoutMillis: 5_000,
    });
    // An idle client dying (server restart) must not crash the process.
    pool.on('error', () => {});
    try {
      await pool.query('SELECT 1');
    } catch (err) {
      await pool.end().catch(() => {});
      throw new NoemaError('STORE_UNAVAILABLE', `cannot connect to PostgreSQL at ${redactUrl(options.url)}`, {
        details: { cause: (err as Error).message },
        hint: 'check NOEMA_DB and that the server is running',
      });
    }
    return new PostgresStore(pool, options.url);
  }

  override async run(sql: string, params?: readonly SqlValue[]): Promise<RunResult> {
    assertNotInTransaction(this);
    return super.run(sql, params);
  }

  override async all<T extends Row = Row>(sql: string, params?: readonly SqlValue[]): Promise<T[]> {
    assertNotInTransaction(this);
    return super.all<T>(sql, params);
  }

  override async get<T extends Row = Row>(sql: string, params?: readonly SqlValue[]): Promise<T | undefined> {
    assertNotInTransaction(this);
    return super.get<T>(sql, params);
  }

  async transaction<T>(fn: (tx: Transaction) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
    assertNotInTransaction(this);
    let client: pg.PoolClient;
    try {
      client = await this.#pool.connect();
    } catch (err) {
      throw translatePostgresError(err);
    }
    let broken = false;
    try {
      // One round trip either way: a simple-protocol query may carry both statements.
      await client.query(
        options.mode === 'read'
          ? 'BEGIN READ ONLY'
          : options.durability === 'deferred'
            ? 'BEGIN; SET LOCAL synchronous_commit = off'
            : 'BEGIN',
      );
      let result: T;
      try {
        result = await runInTransactionScope(this, () => fn(new PostgresTransaction(client)));
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {
          broken = true;
        });
        throw err;
      }
      await client.query('COMMIT');
      return result;
    } catch (err) {
      throw translatePostgresError(err);
    } finally {
      client.release(broken);
    }
  }

  async listen(channel: string, handler: (payload: string) => void): Promise<Unlisten> {
    if (!this.#listener) {
      this.#listener = await this.#pool.connect();
      this.#listener.on('notification', (msg) => {
        for (const h of this.#handlers.get(msg.channel) ?? []) h(msg.payload ?? '');
      });
    }
    let set = this.#handlers.get(channel);
    if (!set) {
      set = new Set();
      this.#handlers.set(channel, set);
      await this.#listener.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    }
    set.add(handler);
    return async () => {
      set.delete(handler);
      if (set.size === 0 && this.#handlers.get(channel) === set) {
        this.#handlers.delete(channel);
        await this.#listener?.query(`UNLISTEN ${pg.escapeIdentifier(channel)}`);
      }
    };
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#listener?.release();
    this.#listener = null;
    await this.#pool.end();
  }
}
