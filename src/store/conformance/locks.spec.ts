/**
 * Conformance: the locking primitives (`lockKey`, `lockRows`, `dialect.forUpdate`) make a
 * read-then-write safe on every backend, and the catalog is read through `tableNames`.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { StoreFactory } from '../../testing/each-store.ts';
import type { Store, Transaction } from '../store.ts';

/** How a transaction locks (if at all) and then reads the counter. */
type LockedRead = (tx: Transaction, store: Store) => Promise<number>;

const plainRead = async (tx: Transaction) =>
  Number((await tx.get<{ n: number }>('SELECT n FROM counter WHERE id = 1'))?.n);

/**
 * Four transactions each read the counter, yield long enough for a rival to read it too, then
 * write n + 1. Without a lock, concurrent writers lose updates; with one, the count is 4.
 */
async function finalCount(factory: StoreFactory, read: LockedRead): Promise<number> {
  return factory.withStore(async ({ store }) => {
    await store.run('CREATE TABLE counter (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)');
    await store.run('INSERT INTO counter (id, n) VALUES (1, 0)');
    await Promise.all(
      Array.from({ length: 4 }, () =>
        store.transaction(async (tx) => {
          const n = await read(tx, store);
          await sleep(40);
          await tx.run('UPDATE counter SET n = ? WHERE id = 1', [n + 1]);
        }),
      ),
    );
    return Number((await store.get<{ n: number }>('SELECT n FROM counter WHERE id = 1'))?.n);
  });
}

export function lockSpecs(factory: StoreFactory): void {
  test('lockKey serializes read-then-write transactions on the same scope (no lost update)', async () => {
    const n = await finalCount(factory, async (tx) => {
      await tx.lockKey('counter:1');
      return plainRead(tx);
    });
    assert.equal(n, 4);
  });

  test('lockRows serializes read-then-write transactions on the same rows (no lost update)', async () => {
    const n = await finalCount(factory, async (tx) => {
      await tx.lockRows('SELECT n FROM counter WHERE id = ?', [1]);
      return plainRead(tx);
    });
    assert.equal(n, 4);
  });

  test('dialect.forUpdate appended to a read locks the rows it reads (no lost update)', async () => {
    const n = await finalCount(factory, async (tx, store) =>
      Number(
        (await tx.get<{ n: number }>(`SELECT n FROM counter WHERE id = 1${store.dialect.forUpdate}`))?.n,
      ),
    );
    assert.equal(n, 4);
  });

  test('tableNames lists the tables of the schema, sorted, and no view', async () => {
    await factory.withStore(async ({ store }) => {
      await store.run('CREATE TABLE zeta (id INTEGER PRIMARY KEY)');
      await store.run('CREATE TABLE alpha (id INTEGER PRIMARY KEY)');
      await store.run('CREATE VIEW beta AS SELECT id FROM alpha');
      assert.deepEqual(await store.tableNames(), ['alpha', 'zeta']);
    }, null);
  });
}
