/**
 * A store that refuses chosen write statements, whichever way they are sent: inside a transaction
 * of either kind, or as a statement committed on its own (`run`, `runSync`, `runAlone`). `refusal`
 * is asked of each write's SQL and returns the error to fail it with, or null to let it through.
 * Reads and every other method go to the store as they are.
 */
import type { SqlValue, Store, SyncTransaction, Transaction, TransactionOptions } from '../store/store.ts';

export function refusingStore(store: Store, refusal: (sql: string) => Error | null): Store {
  const refusing = <T extends Transaction | SyncTransaction>(tx: T): T =>
    new Proxy(tx, {
      get(target, key) {
        if (key === 'write' || key === 'writeOne' || key === 'writeReturning')
          // Refused as the store refuses an issued write: the transaction's error, thrown at once here.
          return (sql: string, ...rest: unknown[]) => {
            const err = refusal(sql);
            if (err) throw err;
            return (Reflect.get(target, key) as (sql: string, ...rest: unknown[]) => void)(sql, ...rest);
          };
        if (key !== 'run') return Reflect.get(target, key);
        return (sql: string, params?: readonly SqlValue[]) => {
          const err = refusal(sql);
          if (!err) return target.run(sql, params);
          // A synchronous transaction (no `notify`) throws; an asynchronous one rejects.
          if (!('notify' in target)) throw err;
          return Promise.reject(err);
        };
      },
    });
  const refuseOr = <R>(sql: string, go: () => R): R => {
    const err = refusal(sql);
    if (err) throw err;
    return go();
  };
  return new Proxy(store, {
    get(target, key) {
      if (key === 'transaction')
        return <T>(fn: (tx: Transaction) => Promise<T>, o?: TransactionOptions) =>
          target.transaction((tx) => fn(refusing(tx)), o);
      if (key === 'transactionSync' && target.transactionSync)
        return <T>(fn: (tx: SyncTransaction) => T, o?: TransactionOptions) =>
          target.transactionSync!((tx) => fn(refusing(tx)), o);
      if (key === 'runSync' && target.runSync)
        return (sql: string, params?: readonly SqlValue[], o?: TransactionOptions) =>
          refuseOr(sql, () => target.runSync!(sql, params, o));
      if (key === 'runAlone' && target.runAlone)
        return async (sql: string, params?: readonly SqlValue[], o?: TransactionOptions) =>
          refuseOr(sql, () => target.runAlone!(sql, params, o));
      if (key === 'run')
        return async (sql: string, params?: readonly SqlValue[]) =>
          refuseOr(sql, () => target.run(sql, params));
      const v = Reflect.get(target, key);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
}
