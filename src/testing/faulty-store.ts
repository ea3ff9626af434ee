/**
 * A Store wrapper that injects one store fault where it really happens: the Nth transaction fails
 * at BEGIN or at COMMIT (its work rolled back), or the Nth statement fails — counting every call
 * made through the wrapper, inside transactions or not. Tests sweep N through every store call an
 * operation makes, asserting that each fault leaves durable state recoverable.
 */
import { NoemaError } from '../core/errors.ts';
import {
  type Row,
  type RunResult,
  type SqlValue,
  STORE_BUSY,
  type Store,
  type SyncTransaction,
  type Transaction,
  type TransactionOptions,
  type Unlisten,
} from '../store/store.ts';

export interface FaultPlan {
  /** Fail the Nth transaction (1-based, counted from `arm`). */
  transaction?: number;
  /**
   * Where the transaction fails: before its callback runs (`begin`), after it with everything rolled
   * back (`commit`, the default), or after a COMMIT that succeeded (`after-commit`: the connection
   * dropped before the answer arrived, so the caller cannot know its write is durable).
   */
  at?: 'begin' | 'commit' | 'after-commit';
  /** Fail the Nth statement (`run`/`all`/`get`, on the store or a transaction; 1-based). */
  statement?: number;
  /** Fail every statement whose SQL matches, until `disarm` (a lasting outage of one kind of call). */
  matching?: RegExp;
}

export interface FaultCounts {
  transactions: number;
  statements: number;
}

/** A retryable outage, as the backends report a lost connection. */
export const storeOutage = (what: string): NoemaError =>
  new NoemaError('STORE_UNAVAILABLE', `injected fault: ${what}`, { retryable: true });

export class FaultyStore implements Store {
  readonly inner: Store;
  readonly counts: FaultCounts = { transactions: 0, statements: 0 };
  /** The faults injected since `arm`, described ("statement 3: SELECT …"). */
  readonly injected: string[] = [];
  /** Present exactly when the wrapped store has it (notifications are not counted). */
  readonly listen?: (channel: string, handler: (payload: string) => void) => Promise<Unlisten>;
  /** Present exactly when the wrapped store has it, with the same faults as `transaction`. */
  readonly transactionSync?: Store['transactionSync'];
  /** Present exactly when the wrapped store has it: a transaction of one statement, with its faults. */
  readonly runSync?: Store['runSync'];
  /** Present exactly when the wrapped store has it: a transaction of one statement, with its faults. */
  readonly runAlone?: Store['runAlone'];
  #plan: FaultPlan | null = null;
  readonly #fault: (what: string) => Error;

  constructor(inner: Store, fault: (what: string) => Error = storeOutage) {
    this.inner = inner;
    this.#fault = fault;
    if (inner.listen) this.listen = inner.listen.bind(inner);
    if (inner.transactionSync) this.transactionSync = (fn, options) => this.#transactionSync(fn, options);
    if (inner.runSync) this.runSync = (sql, params, options) => this.#runSync(sql, params, options);
    if (inner.runAlone) this.runAlone = (sql, params, options) => this.#runAlone(sql, params, options);
  }

  get dialect() {
    return this.inner.dialect;
  }
  get capabilities() {
    return this.inner.capabilities;
  }
  get location() {
    return this.inner.location;
  }

  /** Resets the counters and injects `plan`'s faults (numbered ones once); `null` only counts. */
  arm(plan: FaultPlan | null): void {
    this.#plan = plan;
    this.counts.transactions = 0;
    this.counts.statements = 0;
    this.injected.length = 0;
  }

  /** Stops injecting; counting goes on. */
  disarm(): void {
    this.#plan = null;
  }

  #statement(sql: string): void {
    const n = ++this.counts.statements;
    if (this.#plan?.statement === n || this.#plan?.matching?.test(sql)) {
      const what = `statement ${n}: ${sql.replace(/\s+/g, ' ').slice(0, 80)}`;
      this.injected.push(what);
      throw this.#fault(what);
    }
  }

  #wrap(tx: Transaction): Transaction {
    return {
      run: (sql, params) => {
        this.#statement(sql);
        return tx.run(sql, params);
      },
      all: <T extends Row = Row>(sql: string, params?: readonly SqlValue[]) => {
        this.#statement(sql);
        return tx.all<T>(sql, params);
      },
      get: <T extends Row = Row>(sql: string, params?: readonly SqlValue[]) => {
        this.#statement(sql);
        return tx.get<T>(sql, params);
      },
      notify: (channel, payload) => tx.notify(channel, payload),
      dialect: tx.dialect,
      lockKey: (scope) => {
        this.#statement(`lockKey ${scope}`);
        return tx.lockKey(scope);
      },
      lockRows: (select, params, mode) => {
        this.#statement(select);
        return tx.lockRows(select, params, mode);
      },
      write: (sql, params) => {
        this.#statement(sql);
        tx.write(sql, params);
      },
      writeOne: (sql, params, miss) => {
        this.#statement(sql);
        tx.writeOne(sql, params, miss);
      },
      writeReturning: (sql, params, rows, miss) => {
        this.#statement(sql);
        tx.writeReturning(sql, params, rows, miss);
      },
    };
  }

  #wrapSync(tx: SyncTransaction): SyncTransaction {
    return {
      run: (sql, params) => {
        this.#statement(sql);
        return tx.run(sql, params);
      },
      all: <T extends Row = Row>(sql: string, params?: readonly SqlValue[]) => {
        this.#statement(sql);
        return tx.all<T>(sql, params);
      },
      get: <T extends Row = Row>(sql: string, params?: readonly SqlValue[]) => {
        this.#statement(sql);
        return tx.get<T>(sql, params);
      },
      dialect: tx.dialect,
    };
  }

  async run(sql: string, params?: readonly SqlValue[]): Promise<RunResult> {
    this.#statement(sql);
    return this.inner.run(sql, params);
  }

  async all<T extends Row = Row>(sql: string, params?: readonly SqlValue[]): Promise<T[]> {
    this.#statement(sql);
    return this.inner.all<T>(sql, params);
  }

  async get<T extends Row = Row>(sql: string, params?: readonly SqlValue[]): Promise<T | undefined> {
    this.#statement(sql);
    return this.inner.get<T>(sql, params);
  }

  tableNames(): Promise<string[]> {
    return this.inner.tableNames();
  }

  async transaction<T>(fn: (tx: Transaction) => Promise<T>, options?: TransactionOptions): Promise<T> {
    const n = ++this.counts.transactions;
    const fails = this.#plan?.transaction === n;
    const at = this.#plan?.at ?? 'commit';
    if (fails && at === 'begin') {
      this.injected.push(`transaction ${n} at begin`);
      throw this.#fault(`transaction ${n} at begin`);
    }
    const result = await this.inner.transaction(async (tx) => {
      const result = await fn(this.#wrap(tx));
      if (fails && at === 'commit') {
        // Thrown inside the callback, so the backend rolls everything back: a lost COMMIT.
        this.injected.push(`transaction ${n} at commit`);
        throw this.#fault(`transaction ${n} at commit`);
      }
      return result;
    }, options);
    if (fails && at === 'after-commit') {
      this.injected.push(`transaction ${n} after commit`);
      throw this.#fault(`transaction ${n} after commit`);
    }
    return result;
  }

  /** As `transaction`, synchronously; a transaction the inner store refuses as busy is not counted (its retry is). */
  #transactionSync<T>(fn: (tx: SyncTransaction) => T, options?: TransactionOptions): T | typeof STORE_BUSY {
    const n = this.counts.transactions + 1;
    const fails = this.#plan?.transaction === n;
    const at = this.#plan?.at ?? 'commit';
    if (fails && at === 'begin') {
      this.counts.transactions = n;
      this.injected.push(`transaction ${n} at begin`);
      throw this.#fault(`transaction ${n} at begin`);
    }
    const result = this.inner.transactionSync!((tx) => {
      this.counts.transactions = n;
      const result = fn(this.#wrapSync(tx));
      if (fails && at === 'commit') {
        this.injected.push(`transaction ${n} at commit`);
        throw this.#fault(`transaction ${n} at commit`);
      }
      return result;
    }, options);
    if (result !== STORE_BUSY && fails && at === 'after-commit') {
      this.injected.push(`transaction ${n} after commit`);
      throw this.#fault(`transaction ${n} after commit`);
    }
    return result;
  }

  /**
   * As a synchronous transaction of the one statement (counted as a transaction and a statement): a
   * fault at `begin` or `commit` writes nothing, `after-commit` throws after the statement committed.
   */
  #runSync(
    sql: string,
    params?: readonly SqlValue[],
    options?: TransactionOptions,
  ): RunResult | typeof STORE_BUSY {
    const n = this.counts.transactions + 1;
    const fails = this.#plan?.transaction === n;
    const at = this.#plan?.at ?? 'commit';
    if (fails && at !== 'after-commit') {
      this.counts.transactions = n;
      this.injected.push(`transaction ${n} at ${at}`);
      throw this.#fault(`transaction ${n} at ${at}`);
    }
    this.counts.transactions = n;
    // A statement fault fails it before it runs: nothing written, as in a transaction.
    this.#statement(sql);
    const result = this.inner.runSync!(sql, params, options);
    if (result === STORE_BUSY) {
      // Not run: not counted (its retry is), as a transaction the inner store refuses as busy.
      this.counts.transactions = n - 1;
      this.counts.statements -= 1;
      return result;
    }
    if (fails) {
      this.injected.push(`transaction ${n} after commit`);
      throw this.#fault(`transaction ${n} after commit`);
    }
    return result;
  }

  /** As `#runSync`, for a store whose single statements are asynchronous. */
  async #runAlone(
    sql: string,
    params?: readonly SqlValue[],
    options?: TransactionOptions,
  ): Promise<RunResult> {
    const n = ++this.counts.transactions;
    const fails = this.#plan?.transaction === n;
    const at = this.#plan?.at ?? 'commit';
    if (fails && at !== 'after-commit') {
      this.injected.push(`transaction ${n} at ${at}`);
      throw this.#fault(`transaction ${n} at ${at}`);
    }
    this.#statement(sql);
    const result = await this.inner.runAlone!(sql, params, options);
    if (fails) {
      this.injected.push(`transaction ${n} after commit`);
      throw this.#fault(`transaction ${n} after commit`);
    }
    return result;
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

/**
 * `store` whose reads outside a transaction (`method`) of statements matching `sql` fail as an outage
 * while `failing()` says so (asked once per such read), as a pool that cannot hand out a connection or
 * a server restarting refuses them; `refused()` counts them.
 */
export function refusingReads(
  store: Store,
  method: 'get' | 'all',
  sql: RegExp,
  failing: () => boolean,
): { store: Store; refused: () => number } {
  let refused = 0;
  const proxy = new Proxy(store, {
    get(target, key) {
      const value = Reflect.get(target, key, target);
      if (key !== method) return typeof value === 'function' ? value.bind(target) : value;
      return (text: string, params?: readonly SqlValue[]) => {
        if (sql.test(text) && failing()) {
          refused++;
          return Promise.reject(storeOutage(`a read refused: ${text}`));
        }
        return target[method](text, params);
      };
    },
  });
  return { store: proxy, refused: () => refused };
}
