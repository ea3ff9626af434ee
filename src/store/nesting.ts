/** Detects a store call made from inside one of its own transactions, which would deadlock. */
import { AsyncLocalStorage } from 'node:async_hooks';
import { NoemaError } from '../core/errors.ts';

const activeStores = new AsyncLocalStorage<object>();

/** Calls `fn(arg)` inside `store`'s transaction scope (the argument saves a closure per transaction). */
export function runInTransactionScope<T, A = undefined>(
  store: object,
  fn: (arg: A) => Promise<T>,
  arg?: A,
): Promise<T> {
  return activeStores.run(store, fn, arg as A);
}

export function assertNotInTransaction(store: object): void {
  if (activeStores.getStore() === store) throw nestedTransaction();
}

/** The error for a store called from inside its own transaction (a backend may detect it its own way too). */
export function nestedTransaction(): NoemaError {
  return new NoemaError('NESTED_TRANSACTION', 'store used directly inside its own transaction', {
    hint: 'use the `tx` handle passed to the transaction callback',
  });
}
