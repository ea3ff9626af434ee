/** Detects a store call made from inside one of its own transactions, which would deadlock. */
import { AsyncLocalStorage } from 'node:async_hooks';
import { NoemaError } from '../core/errors.ts';

const activeStores = new AsyncLocalStorage<object>();

export function runInTransactionScope<T>(store: object, fn: () => Promise<T>): Promise<T> {
  return activeStores.run(store, fn);
}

export function assertNotInTransaction(store: object): void {
  if (activeStores.getStore() === store) {
    throw new NoemaError('NESTED_TRANSACTION', 'store used directly inside its own transaction', {
      hint: 'use the `tx` handle passed to the transaction callback',
    });
  }
}
