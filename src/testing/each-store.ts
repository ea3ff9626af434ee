/**
 * Runs one suite of specs against every selected backend (`STORES`), so every storage
 * behaviour is specified once. Specs receive a factory for fresh stores.
 */
import { describe } from 'node:test';
import type { Migration } from '../store/migrations.ts';
import { openTestStore, type StoreKind, selectedStores, type TestStore } from './stores.ts';

export interface StoreFactory {
  kind: StoreKind;
  /** A fresh, migrated, empty store; dispose it at the end of the test. */
  open(migrations?: readonly Migration[] | null): Promise<TestStore>;
}

export function describeEachStore(title: string, specs: (factory: StoreFactory) => void): void {
  for (const kind of selectedStores()) {
    describe(`${title} [${kind}]`, () => {
      specs({ kind, open: (migrations) => openTestStore(kind, migrations) });
    });
  }
}
