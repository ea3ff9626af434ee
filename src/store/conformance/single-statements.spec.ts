/**
 * Conformance: `runAlone`, one write statement committed on its own in one round trip, on the
 * backends whose statements are asynchronous: committed and visible to other connections when it
 * resolves (deferred or not), all or nothing, leaving the connection ordinary, and refused inside a
 * transaction of the same store.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { StoreFactory } from '../../testing/each-store.ts';
import { openStore } from '../open.ts';

const TABLE = 'CREATE TABLE t (id TEXT PRIMARY KEY, n INTEGER NOT NULL)';
const NO_ALONE = 'this backend has synchronous statements (runSync) instead';

export function singleStatementSpecs(factory: StoreFactory): void {
  test('a store has single statements in one round trip exactly when it has no synchronous ones', async () => {
    await factory.withStore(async ({ store }) => {
      assert.equal(typeof store.runAlone === 'function', typeof store.runSync !== 'function');
    });
  });

  for (const durability of ['immediate', 'deferred'] as const) {
    test(`a single statement (${durability}) is committed when it resolves, seen by another connection`, async (t) => {
      await factory.withStore(async ({ store, url, kind }) => {
        if (!store.runAlone) return t.skip(NO_ALONE);
        await store.run(TABLE);
        const o = { durability };
        assert.equal((await store.runAlone('INSERT INTO t (id, n) VALUES (?, ?)', ['a', 1], o)).changes, 1);
        assert.equal((await store.runAlone('UPDATE t SET n = n + 1 WHERE id = ?', ['a'], o)).changes, 1);
        assert.equal((await store.runAlone('UPDATE t SET n = 0 WHERE id = ?', ['missing'], o)).changes, 0);
        const other = await openStore(kind === 'sqlite' ? { kind, path: url } : { kind, url });
        try {
          assert.equal(Number((await other.get<{ n: number }>('SELECT n FROM t WHERE id = ?', ['a']))?.n), 2);
        } finally {
          await other.close();
        }
      });
    });

    test(`a single statement (${durability}) that fails writes nothing, throws a typed error, and leaves the connections ordinary`, async (t) => {
      await factory.withStore(async ({ store }) => {
        if (!store.runAlone) return t.skip(NO_ALONE);
        await store.run(TABLE);
        const o = { durability };
        await store.runAlone('INSERT INTO t (id, n) VALUES (?, ?)', ['a', 1], o);
        // Its second row conflicts: the statement's first row goes with it.
        await assert.rejects(
          store.runAlone('INSERT INTO t (id, n) VALUES (?, ?), (?, ?)', ['b', 1, 'a', 2], o),
          { code: 'CONFLICT' },
        );
        // More statements than the pool has connections, each alone and in transactions: none of
        // them is left inside the failed statement's transaction.
        for (let i = 0; i < 12; i++) {
          await store.runAlone('INSERT INTO t (id, n) VALUES (?, ?)', [`s${i}`, i], o);
          await assert.rejects(store.runAlone('INSERT INTO t (id, n) VALUES (?, ?)', ['a', 0], o), {
            code: 'CONFLICT',
          });
          await store.transaction((tx) => tx.run('INSERT INTO t (id, n) VALUES (?, ?)', [`x${i}`, i]));
        }
        assert.equal((await store.all('SELECT id FROM t WHERE id = ?', ['b'])).length, 0);
        assert.equal((await store.all('SELECT id FROM t')).length, 25);
      });
    });
  }

  test('a single statement inside a transaction of the same store is a NESTED_TRANSACTION error', async (t) => {
    await factory.withStore(async ({ store }) => {
      if (!store.runAlone) return t.skip(NO_ALONE);
      await store.run(TABLE);
      await assert.rejects(
        store.transaction(() => store.runAlone!('INSERT INTO t (id, n) VALUES (?, ?)', ['a', 1])),
        { code: 'NESTED_TRANSACTION' },
      );
      assert.equal((await store.all('SELECT id FROM t')).length, 0);
    });
  });
}
