/**
 * Conformance: `runSync`, one write statement committed on its own (autocommit), on the backends
 * whose statements are synchronous: committed and visible to other connections when it returns,
 * all or nothing, and stepping aside when a transaction holds the connection.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { StoreFactory } from '../../testing/each-store.ts';
import { openStore } from '../open.ts';
import { STORE_BUSY } from '../store.ts';

const TABLE = 'CREATE TABLE t (id TEXT PRIMARY KEY, n INTEGER NOT NULL)';
const NO_SYNC = 'this backend has no synchronous statements (its statements are asynchronous)';

export function syncStatementSpecs(factory: StoreFactory): void {
  test('a store has synchronous single statements exactly when it has synchronous transactions', async () => {
    await factory.withStore(async ({ store }) => {
      assert.equal(typeof store.runSync === 'function', typeof store.transactionSync === 'function');
    });
  });

  test('a synchronous single statement is committed when it returns, seen by another connection', async (t) => {
    await factory.withStore(async ({ store, url, kind }) => {
      if (!store.runSync) return t.skip(NO_SYNC);
      await store.run(TABLE);
      const out = store.runSync('INSERT INTO t (id, n) VALUES (?, ?)', ['a', 1]);
      assert.notEqual(out, STORE_BUSY);
      assert.equal(out === STORE_BUSY ? null : out.changes, 1);
      const updated = store.runSync('UPDATE t SET n = n + 1 WHERE id = ?', ['a']);
      assert.equal(updated === STORE_BUSY ? null : updated.changes, 1);
      const none = store.runSync('UPDATE t SET n = 0 WHERE id = ?', ['missing']);
      assert.equal(none === STORE_BUSY ? null : none.changes, 0);
      // Not left inside an open transaction: a second connection reads it, and the store's own
      // transactions start as usual.
      const other = await openStore(kind === 'sqlite' ? { kind, path: url } : { kind, url });
      try {
        assert.equal((await other.get<{ n: number }>('SELECT n FROM t WHERE id = ?', ['a']))?.n, 2);
      } finally {
        await other.close();
      }
      await store.transaction(async (tx) => {
        await tx.run('INSERT INTO t (id, n) VALUES (?, ?)', ['b', 1]);
      });
      assert.equal((await store.all('SELECT id FROM t')).length, 2);
    });
  });

  test('a synchronous single statement that fails writes nothing and throws a typed error', async (t) => {
    await factory.withStore(async ({ store }) => {
      if (!store.runSync) return t.skip(NO_SYNC);
      await store.run(TABLE);
      store.runSync('INSERT INTO t (id, n) VALUES (?, ?)', ['a', 1]);
      // Its second row conflicts: the statement's first row goes with it.
      assert.throws(() => store.runSync!('INSERT INTO t (id, n) VALUES (?, ?), (?, ?)', ['b', 1, 'a', 2]), {
        code: 'CONFLICT',
      });
      assert.deepEqual(
        (await store.all<{ id: string }>('SELECT id FROM t ORDER BY id')).map((r) => r.id),
        ['a'],
      );
      assert.throws(() => store.runSync!('INSERT INTO t (id, n) VALUES (?, ?)', ['c\u0000', 1]), {
        code: 'INVALID_INPUT',
      });
      const after = store.runSync('INSERT INTO t (id, n) VALUES (?, ?)', ['c', 1]);
      assert.equal(after === STORE_BUSY ? null : after.changes, 1);
    });
  });

  test('a synchronous single statement steps aside while a transaction holds the connection', async (t) => {
    await factory.withStore(async ({ store }) => {
      if (!store.runSync) return t.skip(NO_SYNC);
      await store.run(TABLE);
      let release!: () => void;
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      const running = store.transaction(async (tx) => {
        await tx.run('INSERT INTO t (id, n) VALUES (?, ?)', ['a', 1]);
        await held;
        throw new Error('rolled back');
      });
      assert.equal(store.runSync('INSERT INTO t (id, n) VALUES (?, ?)', ['b', 1]), STORE_BUSY);
      release();
      await assert.rejects(running, /rolled back/);
      // It did not run then, and it did not ride the transaction that rolled back.
      assert.equal((await store.all('SELECT id FROM t')).length, 0);
      assert.notEqual(store.runSync('INSERT INTO t (id, n) VALUES (?, ?)', ['b', 1]), STORE_BUSY);
      assert.equal((await store.all('SELECT id FROM t')).length, 1);
    });
  });

  test('a synchronous single statement inside a transaction of the same store is a NESTED_TRANSACTION error', async (t) => {
    await factory.withStore(async ({ store }) => {
      if (!store.runSync || !store.transactionSync) return t.skip(NO_SYNC);
      await store.run(TABLE);
      const insert = () => store.runSync!('INSERT INTO t (id, n) VALUES (?, ?)', ['a', 1]);
      assert.throws(() => store.transactionSync!(() => insert()), { code: 'NESTED_TRANSACTION' });
      await assert.rejects(
        store.transaction(async () => {
          insert();
        }),
        { code: 'NESTED_TRANSACTION' },
      );
      assert.equal((await store.all('SELECT id FROM t')).length, 0);
    });
  });
}
