/**
 * On PostgreSQL a transaction whose callback issues its writes without waiting for their answers
 * (`Transaction.write`, `writeOne`) sends its BEGIN, statements, notifications and COMMIT in one
 * round trip. Pinned to PostgreSQL: round trips exist only where statements travel to a server
 * (SQLite runs them in the process, `issued-writes.spec.ts` holds both stores to the behaviour).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachStore } from '../../testing/each-store.ts';
import { countPgRoundTrips } from '../../testing/pg-round-trips.ts';

// Before any store connects: a connection binds its client's `query` as it is handed out.
const { counts } = countPgRoundTrips(false);
const trips = { count: () => counts.roundTrips };

describeEachStore('PostgreSQL: writes issued without waiting, and the COMMIT behind them', (factory) => {
  test('a transaction of issued writes and a notification is one round trip; an awaited write adds one', async (t) => {
    await factory.withStore(async ({ store }) => {
      if (!store.capabilities.supportsListenNotify) return t.skip('round trips are PostgreSQL’s');
      await store.run('CREATE TABLE t (id TEXT PRIMARY KEY, n INTEGER NOT NULL)');
      await store.run('INSERT INTO t (id, n) VALUES (?, ?)', ['a', 1]);
      const before = trips.count();
      await store.transaction(async (tx) => {
        tx.write('INSERT INTO t (id, n) VALUES (?, ?)', ['b', 2]);
        tx.writeOne('UPDATE t SET n = n + 1 WHERE id = ?', ['a'], () => new Error('missed'));
        tx.notifyWithCommit?.('noema_issued_writes', 'x');
      });
      assert.equal(trips.count() - before, 1, 'BEGIN, the writes, the notification and the COMMIT together');
      const awaited = trips.count();
      await store.transaction(async (tx) => {
        await tx.run('UPDATE t SET n = n + 1 WHERE id = ?', ['b']);
        tx.notifyWithCommit?.('noema_issued_writes', 'x');
      });
      assert.equal(trips.count() - awaited, 2, 'the awaited write, then the COMMIT');
      const rows = await store.all<{ id: string; n: number }>('SELECT id, n FROM t ORDER BY id');
      assert.deepEqual(
        rows.map((r) => [r.id, Number(r.n)]),
        [
          ['a', 2],
          ['b', 3],
        ],
      );
    });
  });
});
