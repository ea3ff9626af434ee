/**
 * Conformance: `transactionSync`, on the backends that offer it (statements that are synchronous),
 * keeps every promise of `transaction` — commit, rollback, nesting refused — and steps aside when
 * another transaction holds the connection.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { StoreFactory } from '../../testing/each-store.ts';
import { STORE_BUSY } from '../store.ts';

const TABLE = 'CREATE TABLE t (id TEXT PRIMARY KEY, n INTEGER NOT NULL)';
const NO_SYNC = 'this backend has no synchronous transactions (its statements are asynchronous)';

export function syncTransactionSpecs(factory: StoreFactory): void {
  test('a synchronous transaction commits what its callback wrote and returns its value', async (t) => {
    await factory.withStore(async ({ store }) => {
      if (!store.transactionSync) return t.skip(NO_SYNC);
      await store.run(TABLE);
      const out = store.transactionSync((tx) => {
        tx.run('INSERT INTO t (id, n) VALUES (?, ?)', ['a', 1]);
        const r = tx.run('UPDATE t SET n = n + 1 WHERE id = ?', ['a']);
        return { changes: r.changes, row: tx.get<{ n: number }>('SELECT n FROM t WHERE id = ?', ['a']) };
      });
      assert.notEqual(out, STORE_BUSY);
      assert.deepEqual(out === STORE_BUSY ? null : { changes: out.changes, n: out.row?.n }, {
        changes: 1,
        n: 2,
      });
      assert.deepEqual(
        (await store.all<{ id: string }>('SELECT id FROM t')).map((r) => r.id),
        ['a'],
      );
    });
  });

  test('a synchronous read transaction refuses writes (INTERNAL, nothing written) and writes are accepted after it', async (t) => {
    await factory.withStore(async ({ store }) => {
      if (!store.transactionSync) return t.skip(NO_SYNC);
      await store.run(TABLE);
      await store.run('INSERT INTO t (id, n) VALUES (?, ?)', ['a', 1]);
      assert.throws(
        () =>
          store.transactionSync!((tx) => tx.run('UPDATE t SET n = 5 WHERE id = ?', ['a']), { mode: 'read' }),
        (err: { code?: string }) => {
          assert.equal(err.code, 'INTERNAL', String(err));
          return true;
        },
      );
      assert.equal(Number((await store.get<{ n: number }>('SELECT n FROM t'))?.n), 1, 'nothing written');
      store.transactionSync((tx) => tx.run('UPDATE t SET n = 2 WHERE id = ?', ['a']));
      assert.equal(Number((await store.get<{ n: number }>('SELECT n FROM t'))?.n), 2);
    });
  });

  test('a statement that failed inside a synchronous transaction fails it even when the failure was caught there', async (t) => {
    await factory.withStore(async ({ store }) => {
      if (!store.transactionSync) return t.skip(NO_SYNC);
      await store.run(TABLE);
      await store.run('INSERT INTO t (id, n) VALUES (?, ?)', ['a', 1]);
      let caught: unknown = null;
      assert.throws(
        () =>
          store.transactionSync!((tx) => {
            tx.run('INSERT INTO t (id, n) VALUES (?, ?)', ['b', 2]);
            try {
              tx.run('INSERT INTO t (id, n) VALUES (?, ?)', ['a', 3]);
            } catch (err) {
              caught = err;
            }
            return 'returned';
          }),
        (err: Error & { code?: string; cause?: unknown }) =>
          err.code === 'INTERNAL' && err.cause === caught && caught !== null,
      );
      assert.deepEqual(
        (await store.all<{ id: string }>('SELECT id FROM t')).map((r) => r.id),
        ['a'],
      );
      // The next transaction starts clean.
      assert.equal(
        store.transactionSync((tx) => tx.run('INSERT INTO t (id, n) VALUES (?, ?)', ['c', 3]).changes),
        1,
      );
    });
  });

  test('a synchronous transaction that throws leaves nothing behind and rethrows', async (t) => {
    await factory.withStore(async ({ store }) => {
      if (!store.transactionSync) return t.skip(NO_SYNC);
      await store.run(TABLE);
      assert.throws(
        () =>
          store.transactionSync!((tx) => {
            tx.run('INSERT INTO t (id, n) VALUES (?, ?)', ['a', 1]);
            throw new Error('boom');
          }),
        /boom/,
      );
      // A failing statement is a typed error, and rolls back the statements before it.
      assert.throws(
        () =>
          store.transactionSync!((tx) => {
            tx.run('INSERT INTO t (id, n) VALUES (?, ?)', ['b', 1]);
            tx.run('INSERT INTO t (id, n) VALUES (?, ?)', ['b', 2]);
          }),
        { code: 'CONFLICT' },
      );
      assert.equal((await store.all('SELECT id FROM t')).length, 0);
      // The connection is usable afterwards, synchronously and not.
      store.transactionSync((tx) => tx.run('INSERT INTO t (id, n) VALUES (?, ?)', ['c', 1]));
      await store.transaction(async (tx) => {
        await tx.run('INSERT INTO t (id, n) VALUES (?, ?)', ['d', 1]);
      });
      assert.equal((await store.all('SELECT id FROM t')).length, 2);
    });
  });

  test('using the store itself inside a synchronous transaction is a NESTED_TRANSACTION error', async (t) => {
    await factory.withStore(async ({ store }) => {
      if (!store.transactionSync) return t.skip(NO_SYNC);
      await store.run(TABLE);
      const sync = store.transactionSync.bind(store);
      assert.throws(() => sync(() => sync(() => 1)), { code: 'NESTED_TRANSACTION' });
      // The store's async entry points reject (the callback cannot await them, so it commits).
      let run: Promise<unknown> | undefined;
      let nested: Promise<unknown> | undefined;
      sync((tx) => {
        tx.run('INSERT INTO t (id, n) VALUES (?, ?)', ['a', 1]);
        run = store.run('INSERT INTO t (id, n) VALUES (?, ?)', ['b', 1]);
        nested = store.transaction(async () => {});
      });
      await assert.rejects(run!, { code: 'NESTED_TRANSACTION' });
      await assert.rejects(nested!, { code: 'NESTED_TRANSACTION' });
      // A synchronous transaction started inside an async one is refused, never run beside it.
      await assert.rejects(
        store.transaction(async () => {
          sync(() => 1);
        }),
        { code: 'NESTED_TRANSACTION' },
      );
      assert.equal(
        sync((tx) => tx.get<{ c: number }>('SELECT COUNT(*) AS c FROM t')?.c),
        1,
      );
    });
  });

  test('a synchronous transaction steps aside while another transaction holds the connection', async (t) => {
    await factory.withStore(async ({ store }) => {
      if (!store.transactionSync) return t.skip(NO_SYNC);
      await store.run(TABLE);
      let release!: () => void;
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      const running = store.transaction(async (tx) => {
        await tx.run('INSERT INTO t (id, n) VALUES (?, ?)', ['a', 1]);
        await held;
      });
      let called = false;
      const out = store.transactionSync((tx) => {
        called = true;
        return tx.run('INSERT INTO t (id, n) VALUES (?, ?)', ['b', 1]);
      });
      assert.equal(out, STORE_BUSY);
      assert.equal(called, false);
      release();
      await running;
      assert.notEqual(
        store.transactionSync((tx) => tx.run('INSERT INTO t (id, n) VALUES (?, ?)', ['b', 1])),
        STORE_BUSY,
      );
      assert.equal((await store.all('SELECT id FROM t')).length, 2);
    });
  });
}
