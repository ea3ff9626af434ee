/** Conformance: queries, value mapping and transactions behave the same on every backend. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { StoreFactory } from '../../testing/each-store.ts';

const TABLE = 'CREATE TABLE t (id TEXT PRIMARY KEY, n INTEGER NOT NULL, note TEXT)';

export function transactionSpecs(factory: StoreFactory): void {
  test('a committed transaction is visible afterwards', async () => {
    await factory.withStore(async ({ store }) => {
      await store.run(TABLE);
      await store.transaction(async (tx) => {
        await tx.run('INSERT INTO t (id, n) VALUES (?, ?)', ['a', 1]);
        await tx.run('INSERT INTO t (id, n) VALUES (?, ?)', ['b', 2]);
      });
      const rows = await store.all<{ id: string; n: number }>('SELECT id, n FROM t ORDER BY id');
      assert.deepEqual(
        rows.map((r) => ({ ...r })),
        [
          { id: 'a', n: 1 },
          { id: 'b', n: 2 },
        ],
      );
    });
  });

  test('a transaction that throws leaves nothing behind and rethrows', async () => {
    await factory.withStore(async ({ store }) => {
      await store.run(TABLE);
      await assert.rejects(
        store.transaction(async (tx) => {
          await tx.run('INSERT INTO t (id, n) VALUES (?, ?)', ['a', 1]);
          throw new Error('boom');
        }),
        /boom/,
      );
      const row = await store.get<{ c: number }>('SELECT COUNT(*) AS c FROM t');
      assert.equal(Number(row?.c), 0);
    });
  });

  test('a failing statement inside a transaction rolls back earlier statements', async () => {
    await factory.withStore(async ({ store }) => {
      await store.run(TABLE);
      await assert.rejects(
        store.transaction(async (tx) => {
          await tx.run('INSERT INTO t (id, n) VALUES (?, ?)', ['a', 1]);
          await tx.run('INSERT INTO t (id, n) VALUES (?, ?)', ['a', 2]);
        }),
      );
      assert.equal((await store.all('SELECT id FROM t')).length, 0);
    });
  });

  test('a statement that failed inside a transaction fails it even when the failure was caught there: nothing is written, and the next transactions work', async () => {
    await factory.withStore(async ({ store }) => {
      await store.run(TABLE);
      await store.run('INSERT INTO t (id, n) VALUES (?, ?)', ['a', 1]);
      // Once with a notification queued for the COMMIT, where the store sends them with it.
      for (const notified of [false, true]) {
        let caught: unknown = null;
        await assert.rejects(
          store.transaction(async (tx) => {
            await tx.run('INSERT INTO t (id, n) VALUES (?, ?)', ['b', 2]);
            await tx.run('INSERT INTO t (id, n) VALUES (?, ?)', ['a', 3]).catch((err) => {
              caught = err;
            });
            if (notified) tx.notifyWithCommit?.('noema_conformance', 'x');
            return 'resolved';
          }),
          (err: Error & { code?: string; cause?: unknown }) => {
            assert.equal(err.code, 'INTERNAL');
            assert.match(err.message, /failed inside the transaction/);
            assert.equal(err.cause, caught, 'the statement that failed is the cause');
            return true;
          },
        );
        assert.equal((caught as { code?: string } | null)?.code, 'CONFLICT');
        const ids = await store.all<{ id: string }>(
          "SELECT id FROM t WHERE id NOT LIKE 'next-%' ORDER BY id",
        );
        assert.deepEqual(
          ids.map((r) => r.id),
          ['a'],
          'the statement before the failure is not committed',
        );
        // A pool hands the connection just released out first: it must not be left in the transaction.
        for (let i = 0; i < 3; i++)
          await store.transaction(async (tx) => {
            await tx.run('INSERT INTO t (id, n) VALUES (?, ?)', [`next-${notified}-${i}`, i]);
          });
        assert.equal((await store.all('SELECT id FROM t')).length, 1 + 3 * (notified ? 2 : 1));
      }
    });
  });

  test('using the store itself inside its transaction is a NESTED_TRANSACTION error', async () => {
    await factory.withStore(async ({ store }) => {
      await store.run(TABLE);
      await assert.rejects(
        store.transaction(async () => {
          await store.run('INSERT INTO t (id, n) VALUES (?, ?)', ['a', 1]);
        }),
        { code: 'NESTED_TRANSACTION' },
      );
      assert.equal((await store.all('SELECT id FROM t')).length, 0);
    });
  });

  test('concurrent transactions in one process lose no increments', async () => {
    await factory.withStore(async ({ store }) => {
      await store.run(TABLE);
      await store.run('INSERT INTO t (id, n) VALUES (?, ?)', ['c', 0]);
      await Promise.all(
        Array.from({ length: 25 }, (_, i) =>
          store.transaction(async (tx) => {
            await tx.run('UPDATE t SET n = n + 1 WHERE id = ?', ['c']);
            await tx.run('INSERT INTO t (id, n) VALUES (?, ?)', [`row-${i}`, i]);
          }),
        ),
      );
      const c = await store.get<{ n: number }>('SELECT n FROM t WHERE id = ?', ['c']);
      assert.equal(c?.n, 25);
      assert.equal((await store.all('SELECT id FROM t')).length, 26);
    });
  });

  test('values round-trip: integers as numbers, booleans as 0/1, null, text with ? and quotes, blobs', async () => {
    await factory.withStore(async ({ store }) => {
      await store.run(
        `CREATE TABLE v (k TEXT PRIMARY KEY, big ${store.dialect.bigint}, flag INTEGER, maybe TEXT, bin ${store.dialect.blob}, r ${store.dialect.real})`,
      );
      const bin = new Uint8Array([0, 1, 2, 255]);
      await store.run("INSERT INTO v (k, big, flag, maybe, bin, r) VALUES ('what?', ?, ?, ?, ?, ?)", [
        Date.now() * 1000,
        true,
        null,
        bin,
        0.5,
      ]);
      const row = await store.get<{
        k: string;
        big: number;
        flag: number;
        maybe: null;
        bin: Uint8Array;
        r: number;
      }>('SELECT * FROM v WHERE k = ?', ['what?']);
      assert.ok(row);
      assert.equal(typeof row.big, 'number');
      assert.ok(row.big > 1e15);
      assert.equal(row.flag, 1);
      assert.equal(row.maybe, null);
      assert.deepEqual(new Uint8Array(row.bin), bin);
      assert.equal(row.r, 0.5);
    });
  });

  test('RETURNING and ON CONFLICT work portably', async () => {
    await factory.withStore(async ({ store }) => {
      await store.run(`CREATE TABLE s (seq ${store.dialect.autoId}, k TEXT NOT NULL UNIQUE)`);
      const a = await store.get<{ seq: number }>('INSERT INTO s (k) VALUES (?) RETURNING seq', ['a']);
      const b = await store.get<{ seq: number }>('INSERT INTO s (k) VALUES (?) RETURNING seq', ['b']);
      assert.ok(a && b && b.seq > a.seq);
      const dup = await store.run('INSERT INTO s (k) VALUES (?) ON CONFLICT (k) DO NOTHING', ['a']);
      assert.equal(dup.changes, 0);
    });
  });

  test('a transaction that need not be durable commits like any other', async () => {
    await factory.withStore(async ({ store }) => {
      await store.run(TABLE);
      await store.transaction(
        (tx) => tx.run('INSERT INTO t (id, n) VALUES (?, ?)', ['a', 1]).then(() => {}),
        {
          durability: 'deferred',
        },
      );
      const row = await store.get<{ n: number }>('SELECT n FROM t WHERE id = ?', ['a']);
      assert.equal(row?.n, 1);
      // The setting is per transaction: the next one (maybe on the same connection) is an ordinary one.
      await store.transaction((tx) => tx.run('INSERT INTO t (id, n) VALUES (?, ?)', ['b', 2]).then(() => {}));
      assert.equal((await store.all('SELECT id FROM t')).length, 2);
    });
  });

  test('notifications are delivered after commit and never after rollback', async (t) => {
    await factory.withStore(async ({ store }) => {
      if (!store.capabilities.supportsListenNotify || !store.listen) {
        t.skip('backend has no cross-process notifications (supportsListenNotify=false)');
        return;
      }
      const got: string[] = [];
      let arrive = () => {};
      const arrived = new Promise<void>((resolve) => {
        arrive = resolve;
      });
      await store.listen('noema_test', (p) => {
        got.push(p);
        arrive();
      });
      await assert.rejects(
        store.transaction(async (tx) => {
          await tx.notify('noema_test', 'rolled-back');
          throw new Error('no');
        }),
      );
      await store.transaction((tx) => tx.notify('noema_test', 'committed'));
      await arrived;
      await new Promise((r) => setTimeout(r, 50));
      assert.deepEqual(got, ['committed']);
    });
  });
}

export function errorSpecs(factory: StoreFactory): void {
  test('a read transaction refuses writes on every backend: INTERNAL, nothing written, and the store keeps working', async () => {
    await factory.withStore(async ({ store }) => {
      await store.run(TABLE);
      await store.run('INSERT INTO t (id, n) VALUES (?, ?)', ['a', 1]);
      // Read, then write: the write is refused, whether the callback lets it through or catches it.
      for (const caught of [false, true]) {
        await assert.rejects(
          store.transaction(
            async (tx) => {
              await tx.get('SELECT n FROM t WHERE id = ?', ['a']);
              const write = tx.run('UPDATE t SET n = n + 1 WHERE id = ?', ['a']);
              if (caught) await write.catch(() => {});
              else await write;
            },
            { mode: 'read' },
          ),
          (err: { code?: string }) => {
            assert.equal(err.code, 'INTERNAL', String(err));
            return true;
          },
        );
      }
      const row = await store.get<{ n: number }>('SELECT n FROM t WHERE id = ?', ['a']);
      assert.equal(Number(row?.n), 1, 'nothing written');
      // A read transaction still reads, and the next write transaction writes.
      const read = await store.transaction((tx) => tx.get<{ n: number }>('SELECT n FROM t'), {
        mode: 'read',
      });
      assert.equal(Number(read?.n), 1);
      await store.transaction(async (tx) => {
        await tx.run('UPDATE t SET n = 2 WHERE id = ?', ['a']);
      });
      assert.equal(Number((await store.get<{ n: number }>('SELECT n FROM t'))?.n), 2);
    });
  });

  test('a duplicate key is a typed CONFLICT error on every backend, and the store keeps working', async () => {
    await factory.withStore(async ({ store }) => {
      await store.run(TABLE);
      await store.run('INSERT INTO t (id, n) VALUES (?, ?)', ['a', 1]);
      await assert.rejects(store.run('INSERT INTO t (id, n) VALUES (?, ?)', ['a', 2]), { code: 'CONFLICT' });
      await assert.rejects(
        store.transaction((tx) => tx.run('INSERT INTO t (id, n) VALUES (?, ?)', ['a', 3])),
        { code: 'CONFLICT' },
      );
      await store.transaction((tx) => tx.run('INSERT INTO t (id, n) VALUES (?, ?)', ['b', 4]));
      assert.equal((await store.all('SELECT id FROM t')).length, 2);
    });
  });

  test('other constraint failures are CONSTRAINT_VIOLATION', async () => {
    await factory.withStore(async ({ store }) => {
      await store.run(TABLE);
      await assert.rejects(store.run('INSERT INTO t (id, n) VALUES (?, ?)', ['a', null]), {
        code: 'CONSTRAINT_VIOLATION',
      });
    });
  });

  test('using a closed store is STORE_CLOSED', async () => {
    const { store, dispose } = await factory.open();
    await dispose();
    await assert.rejects(store.get('SELECT 1 AS one'), { code: 'STORE_CLOSED' });
    await assert.rejects(
      store.transaction(async () => {}),
      { code: 'STORE_CLOSED' },
    );
  });
}
