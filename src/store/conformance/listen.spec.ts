/**
 * Conformance: cross-process notifications survive faults. A LISTEN connection the server drops is
 * re-established (the process survives, later notifications arrive, subscribers are told of the gap),
 * a notification the server refuses does not abort its transaction, and a throwing handler is logged.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { StoreFactory } from '../../testing/each-store.ts';
import { refuseNotifications, setConnectionsAllowed, terminateListeners } from '../../testing/pg-faults.ts';
import { captureWarnings } from '../../testing/warnings.ts';
import { openStore, parseStoreTarget } from '../index.ts';

const NO_LISTEN =
  'backend has no cross-process notifications (supportsListenNotify=false): no LISTEN connection to lose';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(check: () => boolean, timeoutMs = 10_000): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (!check() && Date.now() < end) await sleep(10);
  return check();
}

export function listenSpecs(factory: StoreFactory): void {
  test('a LISTEN connection the server terminates is re-established: the process survives, subscribers get one gap, later notifications arrive', async (t) => {
    await factory.withStore(async ({ store, url }) => {
      if (!store.capabilities.supportsListenNotify || !store.listen) return t.skip(NO_LISTEN);
      const warnings = captureWarnings();
      try {
        const got: Record<string, string[]> = { a: [], b: [] };
        let gaps = 0;
        await store.listen('noema_a', (p) => got.a!.push(p), { onGap: () => gaps++ });
        await store.listen('noema_b', (p) => got.b!.push(p));
        await store.transaction(async (tx) => {
          await tx.notify('noema_a', 'before');
          await tx.notify('noema_b', 'before');
        });
        assert.ok(
          await until(() => got.a!.length === 1 && got.b!.length === 1),
          'delivered before the fault',
        );

        assert.equal(await terminateListeners(url), 1, 'one listening backend terminated');
        assert.ok(
          await until(() => gaps === 1),
          'the subscriber was told notifications may have been missed',
        );
        assert.equal(warnings.withCode('NOEMA_LISTEN_LOST').length, 1, 'the loss is logged once');
        assert.ok(await warnings.waitFor('NOEMA_LISTEN_RESTORED'));

        await store.transaction(async (tx) => {
          await tx.notify('noema_a', 'after');
          await tx.notify('noema_b', 'after');
        });
        assert.ok(
          await until(() => got.a!.length === 2 && got.b!.length === 2),
          'both channels listened to again',
        );
        assert.deepEqual(got, { a: ['before', 'after'], b: ['before', 'after'] });
        await sleep(50);
        assert.equal(gaps, 1, 'one gap per incident');
      } finally {
        warnings.stop();
      }
    });
  });

  test('a LISTEN connection that cannot reconnect at once keeps retrying with backoff, logs the loss once, and signals the gap once back', async (t) => {
    await factory.withStore(async ({ store, url }) => {
      if (!store.capabilities.supportsListenNotify || !store.listen) return t.skip(NO_LISTEN);
      const warnings = captureWarnings();
      try {
        let gaps = 0;
        const got: string[] = [];
        await store.listen('noema_a', (p) => got.push(p), { onGap: () => gaps++ });
        await setConnectionsAllowed(url, false);
        try {
          assert.equal(await terminateListeners(url), 1);
          // Several reconnection attempts fail meanwhile (backoff starts at 100 ms).
          await sleep(700);
          assert.equal(gaps, 0, 'no gap is signalled before listening again');
        } finally {
          await setConnectionsAllowed(url, true);
        }
        assert.ok(await until(() => gaps === 1), 'the gap is signalled once listening again');
        assert.equal(
          warnings.withCode('NOEMA_LISTEN_LOST').length,
          1,
          'failed attempts are not logged one by one',
        );
        await store.transaction((tx) => tx.notify('noema_a', 'later'));
        assert.ok(await until(() => got.includes('later')));
      } finally {
        warnings.stop();
      }
    });
  });

  test('a notification the server refuses rejects notify but the transaction goes on and commits', async (t) => {
    await factory.withStore(async ({ store, url }) => {
      if (!store.capabilities.supportsListenNotify || !store.listen) return t.skip(NO_LISTEN);
      await store.run('CREATE TABLE t (id TEXT PRIMARY KEY)');
      await refuseNotifications(url);
      const refused = await openStore(parseStoreTarget(url));
      try {
        await refused.transaction(async (tx) => {
          await tx.run('INSERT INTO t (id) VALUES (?)', ['before']);
          await assert.rejects(tx.notify('noema_a', 'x'), /notify refused by the test/);
          await tx.run('INSERT INTO t (id) VALUES (?)', ['after']);
        });
        const rows = await store.all<{ id: string }>('SELECT id FROM t ORDER BY id');
        assert.deepEqual(
          rows.map((r) => r.id),
          ['after', 'before'],
        );
      } finally {
        await refused.close();
      }
    });
  });

  test('notifyWithCommit sends with the commit and tells it was sent; a rollback sends nothing and tells nothing', async (t) => {
    await factory.withStore(async ({ store }) => {
      if (!store.capabilities.supportsListenNotify || !store.listen) return t.skip(NO_LISTEN);
      const got: string[] = [];
      await store.listen('noema_a', (p) => got.push(p));
      const told: Array<Error | null> = [];
      await assert.rejects(
        store.transaction(async (tx) => {
          tx.notifyWithCommit?.('noema_a', 'rolled-back', (r) => told.push(r));
          throw new Error('no');
        }),
      );
      await store.transaction(async (tx) => {
        assert.ok(tx.notifyWithCommit, 'a backend with notifications sends them with the commit');
        tx.notifyWithCommit('noema_a', 'one');
        tx.notifyWithCommit('noema_a', 'two', (r) => told.push(r));
      });
      assert.deepEqual(told, [null], 'told once committed, before the transaction returns');
      assert.ok(await until(() => got.length === 2));
      await sleep(50);
      assert.deepEqual(got, ['one', 'two']);
    });
  });

  test("a notification's payload arrives exactly as sent, whatever it holds, through notify and notifyWithCommit", async (t) => {
    await factory.withStore(async ({ store }) => {
      if (!store.capabilities.supportsListenNotify || !store.listen) return t.skip(NO_LISTEN);
      const payloads = [
        '',
        '{"text":"it\'s a \\"quote\\" and a back\\\\slash"}',
        "''\\\\'",
        '$',
        '$$ $1 $tag$ $$',
        'a $noema$ inside',
        'ends with $noema',
        "both $noema and ' and \\ together",
        '$noema$',
        'é漢字🙂 \u2028',
        JSON.stringify({
          events: Array.from({ length: 60 }, (_, i) => ({ seq: i, text: `it's "${i}" \\ $` })),
        }),
      ];
      const got: string[] = [];
      await store.listen('noema_a', (p) => got.push(p));
      for (const p of payloads) await store.transaction((tx) => tx.notify('noema_a', p));
      await store.transaction(async (tx) => {
        for (const p of payloads) tx.notifyWithCommit?.('noema_a', p);
      });
      assert.ok(await until(() => got.length === 2 * payloads.length));
      assert.deepEqual(got, [...payloads, ...payloads]);
    });
  });

  test('a notification queued with the commit that the server refuses leaves the transaction committed and is told', async (t) => {
    await factory.withStore(async ({ store, url }) => {
      if (!store.capabilities.supportsListenNotify || !store.listen) return t.skip(NO_LISTEN);
      await store.run('CREATE TABLE t (id TEXT PRIMARY KEY)');
      await refuseNotifications(url);
      const refused = await openStore(parseStoreTarget(url));
      try {
        const told: Array<Error | null> = [];
        await refused.transaction(async (tx) => {
          await tx.run('INSERT INTO t (id) VALUES (?)', ['kept']);
          tx.notifyWithCommit?.('noema_a', 'x', (r) => told.push(r));
        });
        assert.equal(told.length, 1);
        assert.match(String(told[0]?.message), /notify refused by the test/);
        const rows = await store.all<{ id: string }>('SELECT id FROM t');
        assert.deepEqual(
          rows.map((r) => r.id),
          ['kept'],
        );
        await refused.transaction(async (tx) => tx.run('INSERT INTO t (id) VALUES (?)', ['next']));
        assert.equal((await store.all('SELECT id FROM t')).length, 2, 'the connection is reused cleanly');
      } finally {
        await refused.close();
      }
    });
  });

  test('a COMMIT that fails with notifications queued rejects the transaction with its own error and tells nothing', async (t) => {
    await factory.withStore(async ({ store }) => {
      if (!store.capabilities.supportsListenNotify || !store.listen) return t.skip(NO_LISTEN);
      // A deferred unique constraint is checked by COMMIT itself.
      await store.run('CREATE TABLE d (id TEXT, CONSTRAINT d_id UNIQUE (id) DEFERRABLE INITIALLY DEFERRED)');
      const got: string[] = [];
      await store.listen('noema_a', (p) => got.push(p));
      const told: Array<Error | null> = [];
      await assert.rejects(
        store.transaction(async (tx) => {
          await tx.run('INSERT INTO d (id) VALUES (?)', ['same']);
          await tx.run('INSERT INTO d (id) VALUES (?)', ['same']);
          tx.notifyWithCommit?.('noema_a', 'lost', (r) => told.push(r));
        }),
        (e: Error & { code?: string }) => e.code === 'CONFLICT',
      );
      assert.deepEqual(told, []);
      assert.equal((await store.all('SELECT id FROM d')).length, 0, 'nothing committed');
      await store.transaction(async (tx) => tx.notifyWithCommit?.('noema_a', 'after'));
      assert.ok(await until(() => got.length === 1));
      assert.deepEqual(got, ['after'], 'the failed commit sent nothing; the store goes on');
    });
  });

  test('a handler that throws is logged once and does not stop the other handlers', async (t) => {
    await factory.withStore(async ({ store }) => {
      if (!store.capabilities.supportsListenNotify || !store.listen) return t.skip(NO_LISTEN);
      const warnings = captureWarnings();
      try {
        const got: string[] = [];
        await store.listen('noema_a', () => {
          throw new Error('handler bug');
        });
        await store.listen('noema_a', (p) => got.push(p));
        await store.transaction((tx) => tx.notify('noema_a', '1'));
        await store.transaction((tx) => tx.notify('noema_a', '2'));
        assert.ok(await until(() => got.length === 2));
        assert.ok(await warnings.waitFor('NOEMA_EVENT_LISTENER_FAILED'));
        await sleep(20);
        const logged = warnings.withCode('NOEMA_EVENT_LISTENER_FAILED');
        assert.equal(logged.length, 1);
        assert.match(logged[0]!.message, /handler bug/);
      } finally {
        warnings.stop();
      }
    });
  });
}
