/**
 * Conformance: writes a transaction issues without waiting for their answers (`Transaction.write`,
 * `writeOne`, `writeReturning`) commit with it; the first of them to fail — or a `writeOne` that
 * changed no row, a `writeReturning` with a miss that returned other than one row — is the
 * transaction's own error, and nothing of the transaction is written, whether or not the callback
 * went on after it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { StoreFactory } from '../../testing/each-store.ts';

const TABLE = 'CREATE TABLE t (id TEXT PRIMARY KEY, n INTEGER NOT NULL)';

class Missed extends Error {}

export function issuedWriteSpecs(factory: StoreFactory): void {
  test('issued writes commit with their transaction, in issue order', async () => {
    await factory.withStore(async ({ store }) => {
      await store.run(TABLE);
      await store.run('INSERT INTO t (id, n) VALUES (?, ?)', ['a', 1]);
      const out = await store.transaction(async (tx) => {
        tx.write('INSERT INTO t (id, n) VALUES (?, ?)', ['b', 2]);
        tx.writeOne('UPDATE t SET n = n + 10 WHERE id = ?', ['a'], () => new Missed('a'));
        tx.writeOne('UPDATE t SET n = n + 100 WHERE id = ?', ['b'], () => new Missed('b'));
        tx.write('DELETE FROM t WHERE id = ?', ['nobody']);
        return 'done';
      });
      assert.equal(out, 'done');
      const rows = await store.all<{ id: string; n: number }>('SELECT id, n FROM t ORDER BY id');
      assert.deepEqual(
        rows.map((r) => [r.id, Number(r.n)]),
        [
          ['a', 11],
          ['b', 102],
        ],
      );
    });
  });

  test('a writeOne that changed no row fails the transaction with its miss, and nothing is written', async () => {
    await factory.withStore(async ({ store }) => {
      await store.run(TABLE);
      await store.run('INSERT INTO t (id, n) VALUES (?, ?)', ['a', 1]);
      for (const after of ['nothing', 'a write', 'an awaited read', 'a notification'] as const) {
        await assert.rejects(
          store.transaction(async (tx) => {
            tx.write('INSERT INTO t (id, n) VALUES (?, ?)', ['b', 2]);
            tx.writeOne('UPDATE t SET n = 5 WHERE id = ?', ['nobody'], () => new Missed('nobody'));
            if (after === 'a write') tx.write('UPDATE t SET n = 7 WHERE id = ?', ['a']);
            if (after === 'an awaited read') await tx.get('SELECT n FROM t WHERE id = ?', ['a']);
            // Where the store sends notifications with the COMMIT, behind the writes.
            if (after === 'a notification') tx.notifyWithCommit?.('noema_issued_writes', 'x');
          }),
          (err) => {
            assert.ok(err instanceof Missed, `${after}: ${String(err)}`);
            assert.equal(err.message, 'nobody');
            return true;
          },
        );
        const rows = await store.all<{ id: string; n: number }>('SELECT id, n FROM t ORDER BY id');
        assert.deepEqual(
          rows.map((r) => [r.id, Number(r.n)]),
          [['a', 1]],
          `${after}: nothing written`,
        );
      }
      // The store goes on working.
      await store.transaction(async (tx) => {
        tx.writeOne('UPDATE t SET n = 2 WHERE id = ?', ['a'], () => new Missed('a'));
      });
      assert.equal(Number((await store.get<{ n: number }>('SELECT n FROM t'))?.n), 2);
    });
  });

  test('a writeOne that changed more than one row fails the transaction too', async () => {
    await factory.withStore(async ({ store }) => {
      await store.run(TABLE);
      await store.run('INSERT INTO t (id, n) VALUES (?, ?), (?, ?)', ['a', 1, 'b', 1]);
      await assert.rejects(
        store.transaction(async (tx) => {
          tx.writeOne('UPDATE t SET n = 3 WHERE n = ?', [1], () => new Missed('two'));
        }),
        Missed,
      );
      assert.equal(Number((await store.get<{ s: number }>('SELECT SUM(n) AS s FROM t'))?.s), 2);
    });
  });

  test('writeReturning tells its rows before the transaction settles; with a miss, its one row', async () => {
    await factory.withStore(async ({ store }) => {
      await store.run(TABLE);
      await store.run('INSERT INTO t (id, n) VALUES (?, ?)', ['a', 1]);
      const told: unknown[] = [];
      await store.transaction(async (tx) => {
        tx.writeReturning<{ id: string; n: number }>('UPDATE t SET n = n + 1 RETURNING id, n', [], (rows) =>
          told.push(rows.map((r) => [r.id, Number(r.n)])),
        );
        tx.writeReturning<{ id: string; n: number }>(
          'INSERT INTO t (id, n) VALUES (?, ?) RETURNING id, n',
          ['b', 5],
          (rows) => told.push(rows.map((r) => ({ ...r, n: Number(r.n) }))),
          () => new Missed('b'),
        );
        tx.writeReturning(
          'INSERT INTO t (id, n) VALUES (?, ?) ON CONFLICT (id) DO NOTHING RETURNING id',
          ['a', 9],
          (rows) => told.push(rows.length),
        );
      });
      assert.deepEqual(told, [[['a', 2]], [{ id: 'b', n: 5 }], 0], 'every callback, in issue order');
      const rows = await store.all<{ id: string; n: number }>('SELECT id, n FROM t ORDER BY id');
      assert.deepEqual(
        rows.map((r) => [r.id, Number(r.n)]),
        [
          ['a', 2],
          ['b', 5],
        ],
      );
    });
  });

  test('a writeReturning with a miss that returned no row, or two, fails the transaction with its miss', async () => {
    await factory.withStore(async ({ store }) => {
      await store.run(TABLE);
      await store.run('INSERT INTO t (id, n) VALUES (?, ?), (?, ?)', ['a', 1, 'b', 1]);
      for (const [what, sql, params] of [
        ['no row', 'INSERT INTO t (id, n) VALUES (?, ?) ON CONFLICT (id) DO NOTHING RETURNING id', ['a', 7]],
        ['two rows', 'UPDATE t SET n = 7 WHERE n = ? RETURNING id', [1]],
      ] as const) {
        let told = false;
        await assert.rejects(
          store.transaction(async (tx) => {
            tx.write('INSERT INTO t (id, n) VALUES (?, ?)', ['c', 3]);
            tx.writeReturning(
              sql,
              [...params],
              () => {
                told = true;
              },
              () => new Missed(what),
            );
            tx.write('UPDATE t SET n = 8 WHERE id = ?', ['a']);
          }),
          (err) => {
            assert.ok(err instanceof Missed, `${what}: ${String(err)}`);
            assert.equal(err.message, what);
            return true;
          },
        );
        assert.equal(told, false, `${what}: its rows are not told`);
        const rows = await store.all<{ id: string; n: number }>('SELECT id, n FROM t ORDER BY id');
        assert.deepEqual(
          rows.map((r) => [r.id, Number(r.n)]),
          [
            ['a', 1],
            ['b', 1],
          ],
          `${what}: nothing written`,
        );
      }
    });
  });

  test('a failed write is the transaction’s error (typed), and nothing is written', async () => {
    await factory.withStore(async ({ store }) => {
      await store.run(TABLE);
      await store.run('INSERT INTO t (id, n) VALUES (?, ?)', ['a', 1]);
      await assert.rejects(
        store.transaction(async (tx) => {
          tx.write('INSERT INTO t (id, n) VALUES (?, ?)', ['b', 2]);
          tx.write('INSERT INTO t (id, n) VALUES (?, ?)', ['a', 3]);
          tx.write('INSERT INTO t (id, n) VALUES (?, ?)', ['c', 4]);
        }),
        (err: { code?: string }) => {
          assert.equal(err.code, 'CONFLICT', String(err));
          return true;
        },
      );
      assert.deepEqual(
        (await store.all<{ id: string }>('SELECT id FROM t ORDER BY id')).map((r) => r.id),
        ['a'],
      );
    });
  });

  test('a callback that throws after issuing writes leaves nothing written and rethrows its error', async () => {
    await factory.withStore(async ({ store }) => {
      await store.run(TABLE);
      await assert.rejects(
        store.transaction(async (tx) => {
          tx.write('INSERT INTO t (id, n) VALUES (?, ?)', ['a', 1]);
          throw new Error('boom');
        }),
        /boom/,
      );
      assert.equal((await store.all('SELECT id FROM t')).length, 0);
    });
  });
}
