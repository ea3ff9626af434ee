/**
 * A store that records the statements of each transaction it runs (one list per attempt), for tests
 * that check what commits together: a call's contract move riding its invocation's transaction.
 */
import type { Store, Transaction } from '../store/store.ts';

export function recordingTransactions(store: Store): { store: Store; txs: string[][] } {
  const txs: string[][] = [];
  const bind = (t: object, k: string | symbol) => {
    const v = Reflect.get(t, k);
    return typeof v === 'function' ? v.bind(t) : v;
  };
  const wrapped = new Proxy(store, {
    get(target, key) {
      if (key !== 'transaction') return bind(target, key);
      return (fn: (tx: Transaction) => Promise<unknown>, options?: unknown) =>
        target.transaction((tx) => {
          const sqls: string[] = [];
          txs.push(sqls);
          const recorded = new Proxy(tx, {
            get(t, k) {
              const v = bind(t, k);
              if (k !== 'run' && k !== 'get' && k !== 'all') return v;
              return (sql: string, params?: unknown) => {
                sqls.push(sql);
                return v(sql, params);
              };
            },
          });
          return fn(recorded);
        }, options as never);
    },
  });
  return { store: wrapped, txs };
}
