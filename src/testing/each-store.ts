/**
 * Runs one suite of specs against every selected backend (`STORES`), so every storage
 * behaviour is specified once. Specs receive a factory for fresh stores.
 */
import { describe } from 'node:test';
import type { Migration } from '../store/index.ts';
import { openTestStore, type StoreKind, selectedStores, type TestStore } from './stores.ts';

export interface StoreFactory {
  kind: StoreKind;
  /** A fresh, migrated, empty store; dispose it at the end of the test. */
  open(migrations?: readonly Migration[] | null): Promise<TestStore>;
  /** Runs `fn` on a fresh store (as `open`) and disposes it afterwards, whatever happens. */
  withStore<T>(fn: (ts: TestStore) => Promise<T>, migrations?: readonly Migration[] | null): Promise<T>;
}

export function describeEachStore(title: string, specs: (factory: StoreFactory) => void): void {
  for (const kind of selectedStores()) {
    describe(`${title} [${kind}]`, () => {
      const open = (migrations?: readonly Migration[] | null) => openTestStore(kind, migrations);
      specs({
        kind,
        open,
        async withStore(fn, migrations) {
          const ts = await open(migrations);
          try {
            return await fn(ts);
          } finally {
            await ts.dispose();
          }
        },
      });
    });
  }
}
