/**
 * Conformance: statements a transaction issues before the earlier ones have answered (pipelined on
 * PostgreSQL) run in issue order, each resolving with its own result, and a failure among them is
 * its own error and leaves nothing written.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { StoreFactory } from '../../testing/each-store.ts';

const TABLE = 'CREATE TABLE t (id TEXT PRIMARY KEY, n INTEGER NOT NULL)';

export function pipeliningSpecs(factory: StoreFactory): void {
  test('statements issued without awaiting run in issue order, each with its own result', async () => {
    await factory.withStore(async ({ store }) => {
      await store.run(TABLE);
      const out = await store.transaction(async (tx) => {
        const inserted = tx.run('INSERT INTO t (id, n) VALUES (?, ?)', ['a', 1]);
        const bumped = tx.run('UPDATE t SET n = n + 10 WHERE id = ?', ['a']);
        const missed = tx.run('UPDATE t SET n = 0 WHERE id = ?', ['nobody']);
        const read = tx.get<{ n: number }>('SELECT n FROM t WHERE id = ?', ['a']);
        const second = tx.run('INSERT INTO t (id, n) VALUES (?, ?)', ['b', 2]);
        const all = tx.all<{ id: string }>('SELECT id FROM t ORDER BY id');
        return {
          inserted: (await inserted).changes,
          bumped: (await bumped).changes,
          missed: (await missed).changes,
          read: Number((await read)?.n),
          second: (await second).changes,
          all: (await all).map((r) => r.id),
        };
      });
      assert.deepEqual(out, { inserted: 1, bumped: 1, missed: 0, read: 11, second: 1, all: ['a', 'b'] });
      assert.deepEqual(
        (await store.all<{ id: string; n: number }>('SELECT id, n FROM t ORDER BY id')).map((r) => ({
          ...r,
        })),
        [
          { id: 'a', n: 11 },
          { id: 'b', n: 2 },
        ],
      );
    });
  });

  test('a failing statement among issued ones rejects with its own error, and nothing is written', async () => {
    await factory.withStore(async ({ store }) => {
      await store.run(TABLE);
      let cause: unknown = null;
      await assert.rejects(
        store.transaction(async (tx) => {
          const issued = [
            tx.run('INSERT INTO t (id, n) VALUES (?, ?)', ['a', 1]),
            tx.run('INSERT INTO t (id, n) VALUES (?, ?)', ['a', 2]),
            tx.run('INSERT INTO t (id, n) VALUES (?, ?)', ['b', 3]),
          ];
          // Every promise is handled; the first rejection in issue order is the cause.
          for (const p of issued) p.catch(() => {});
          for (const p of issued) {
            try {
              await p;
            } catch (err) {
              cause = err;
              throw err;
            }
          }
        }),
      );
      assert.equal((cause as { code?: string } | null)?.code, 'CONFLICT');
      assert.equal((await store.all('SELECT id FROM t')).length, 0);
      // The store goes on working (its connection was not left mid-pipeline).
      await store.transaction(async (tx) => {
        await Promise.all([
          tx.run('INSERT INTO t (id, n) VALUES (?, ?)', ['c', 1]),
          tx.run('INSERT INTO t (id, n) VALUES (?, ?)', ['d', 1]),
        ]);
      });
      assert.equal((await store.all('SELECT id FROM t')).length, 2);
    });
  });
}
