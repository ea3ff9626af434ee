/**
 * A statement issued on a PostgreSQL transaction after it committed or rolled back (work still
 * running after its transaction failed early) is refused, INTERNAL, and never sent: its pooled
 * connection may by then be inside another caller's transaction, which it would otherwise write into.
 * PostgreSQL only: SQLite's store hands every transaction one shared handle on its single connection
 * (no object per transaction on the engine step's path), so it has no such guard.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openTestStore, selectedStores } from '../../testing/stores.ts';
import type { Transaction } from '../store.ts';

const skip = !selectedStores().includes('postgres') && 'PostgreSQL is not in STORES';

test('a statement on an ended transaction is refused and writes nothing into the next one', {
  skip,
}, async () => {
  const ts = await openTestStore('postgres', null);
  const { store } = ts;
  try {
    await store.run('CREATE TABLE ended_probe (k TEXT NOT NULL)');
    let kept: Transaction | undefined;
    await store.transaction(async (tx) => {
      kept = tx;
      await tx.run("INSERT INTO ended_probe (k) VALUES ('committed')");
    });
    await assert.rejects(kept!.run("INSERT INTO ended_probe (k) VALUES ('late')"), { code: 'INTERNAL' });
    // A transaction that failed early, with its work still going: that work's statement, issued while
    // the next transaction holds the pooled connection, is refused, not written into it.
    let stale: Transaction | undefined;
    await assert.rejects(
      store.transaction(async (tx) => {
        stale = tx;
        throw new Error('failed early');
      }),
      /failed early/,
    );
    await store.transaction(async (tx) => {
      await tx.run("INSERT INTO ended_probe (k) VALUES ('next')");
      await assert.rejects(stale!.run("INSERT INTO ended_probe (k) VALUES ('stray')"), { code: 'INTERNAL' });
      await assert.rejects(stale!.get('SELECT 1'), { code: 'INTERNAL' });
      await assert.rejects(stale!.lockKey('probe'), { code: 'INTERNAL' });
    });
    const rows = await store.all<{ k: string }>('SELECT k FROM ended_probe ORDER BY k');
    assert.deepEqual(
      rows.map((r) => r.k),
      ['committed', 'next'],
    );
  } finally {
    await ts.dispose();
  }
});
