/**
 * A store that records the statements of each transaction it runs (one list per attempt, with the
 * transaction's durability), asynchronous and synchronous alike (a statement committed on its own
 * through `runSync` or `runAlone` is a transaction of one statement), and the reads made outside one: for
 * tests that check what commits together (a call's contract move riding its invocation's
 * transaction) and which commits wait for the disk.
 */
import {
  type SqlValue,
  STORE_BUSY,
  type Store,
  type Transaction,
  type TransactionOptions,
} from '../store/store.ts';

export interface RecordedTransaction {
  sqls: string[];
  durability: NonNullable<TransactionOptions['durability']>;
  /** How it ran: `transaction`, `transactionSync`, or `runSync`/`runAlone` (one statement committed on its own). */
  via: 'transaction' | 'transactionSync' | 'runSync' | 'runAlone';
}

export function recordingTransactions(store: Store): {
  store: Store;
  /** Each transaction's statements, in order. */
  txs: string[][];
  /** The same transactions with their durability. */
  recorded: RecordedTransaction[];
  /** Statements run outside a transaction (`get`/`all`). */
  reads: string[];
} {
  const txs: string[][] = [];
  const recorded: RecordedTransaction[] = [];
  const reads: string[] = [];
  const bind = (t: object, k: string | symbol) => {
    const v = Reflect.get(t, k);
    return typeof v === 'function' ? v.bind(t) : v;
  };
  const open = (via: RecordedTransaction['via'], options?: TransactionOptions): string[] => {
    const sqls: string[] = [];
    txs.push(sqls);
    recorded.push({ sqls, durability: options?.durability ?? 'immediate', via });
    return sqls;
  };
  const recording = <T extends object>(tx: T, sqls: string[]): T =>
    new Proxy(tx, {
      get(t, k) {
        const v = bind(t, k);
        if (
          k !== 'run' &&
          k !== 'get' &&
          k !== 'all' &&
          k !== 'write' &&
          k !== 'writeOne' &&
          k !== 'writeReturning'
        )
          return v;
        return (sql: string, ...rest: unknown[]) => {
          sqls.push(sql);
          return v(sql, ...rest);
        };
      },
    });
  const wrapped = new Proxy(store, {
    get(target, key) {
      if (key === 'get' || key === 'all')
        return (sql: string, params?: unknown) => {
          reads.push(sql);
          return bind(target, key)(sql, params);
        };
      if (key === 'transaction')
        return (fn: (tx: Transaction) => Promise<unknown>, options?: TransactionOptions) =>
          target.transaction((tx) => fn(recording(tx, open('transaction', options))), options);
      if (key === 'transactionSync' && target.transactionSync)
        return (fn: (tx: object) => unknown, options?: TransactionOptions) => {
          let sqls: string[] | null = null;
          const out = target.transactionSync!((tx) => {
            sqls = open('transactionSync', options);
            return fn(recording(tx, sqls));
          }, options);
          return out;
        };
      if (key === 'runSync' && target.runSync)
        // A statement committed on its own: a transaction of one statement.
        return (sql: string, params?: readonly SqlValue[], options?: TransactionOptions) => {
          const out = target.runSync!(sql, params, options);
          if (out !== STORE_BUSY) open('runSync', options).push(sql);
          return out;
        };
      if (key === 'runAlone' && target.runAlone)
        return async (sql: string, params?: readonly SqlValue[], options?: TransactionOptions) => {
          const out = await target.runAlone!(sql, params, options);
          open('runAlone', options).push(sql);
          return out;
        };
      return bind(target, key);
    },
  });
  return { store: wrapped, txs, recorded, reads };
}
