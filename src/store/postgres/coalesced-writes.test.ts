/**
 * Statements a PostgreSQL transaction issues together leave in one socket write (a system call, and
 * on loopback the server's receive path with it), not one write each; their answers, errors and order
 * are what they were. PostgreSQL only: SQLite's store has no socket.
 */
import assert from 'node:assert/strict';
import { Socket } from 'node:net';
import { test } from 'node:test';
import { openTestStore, selectedStores, testPostgresUrl } from '../../testing/stores.ts';

const skip = !selectedStores().includes('postgres') && 'PostgreSQL is not in STORES';

/** Counts writes to the server's port while `fn` runs (every socket of this process to it). */
async function writesDuring(fn: () => Promise<void>): Promise<number> {
  const port = Number(new URL(testPostgresUrl()).port || 5432);
  let n = 0;
  const originals = { _write: Socket.prototype._write, _writev: Socket.prototype._writev };
  for (const m of ['_write', '_writev'] as const) {
    const original = originals[m] as (...args: unknown[]) => unknown;
    Socket.prototype[m] = function (this: Socket, ...args: unknown[]) {
      if (this.remotePort === port) n++;
      return original.apply(this, args);
    } as never;
  }
  try {
    await fn();
  } finally {
    Socket.prototype._write = originals._write;
    Socket.prototype._writev = originals._writev;
  }
  return n;
}

test('a transaction’s BEGIN and the statements it issues together go out in one write, its COMMIT in another', {
  skip,
}, async () => {
  const { store, dispose } = await openTestStore('postgres', null);
  try {
    await store.run('CREATE TABLE coalesced_probe (k INTEGER NOT NULL, v TEXT NOT NULL)');
    const together = async () =>
      store.transaction(async (tx) => {
        const a = tx.run('INSERT INTO coalesced_probe (k, v) VALUES (?, ?)', [1, 'one']);
        const b = tx.run('INSERT INTO coalesced_probe (k, v) VALUES (?, ?)', [2, 'two']);
        const c = tx.get<{ n: number }>('SELECT COUNT(*) AS n FROM coalesced_probe');
        const [, , row] = await Promise.all([a, b, c]);
        return Number(row!.n);
      });
    assert.equal(await together(), 2); // the connection and its statements warm
    let counted = 0;
    const writes = await writesDuring(async () => {
      counted = await together();
    });
    assert.equal(counted, 4, 'each statement saw the ones before it, in order');
    assert.equal(writes, 2, 'BEGIN with the three statements, then COMMIT');
  } finally {
    await dispose();
  }
});

test('a statement that fails among statements sent together fails alone with its error, and rolls its transaction back', {
  skip,
}, async () => {
  const { store, dispose } = await openTestStore('postgres', null);
  try {
    await store.run('CREATE TABLE coalesced_fail (k INTEGER PRIMARY KEY)');
    await assert.rejects(
      store.transaction(async (tx) => {
        const a = tx.run('INSERT INTO coalesced_fail (k) VALUES (?)', [1]);
        const b = tx.run('INSERT INTO coalesced_fail (k) VALUES (?)', [1]);
        a.catch(() => {});
        b.catch(() => {});
        await a;
        await b;
      }),
      { code: 'CONFLICT' },
    );
    const row = await store.get<{ n: number }>('SELECT COUNT(*) AS n FROM coalesced_fail');
    assert.equal(Number(row!.n), 0);
    // The connection goes on serving.
    await store.run('INSERT INTO coalesced_fail (k) VALUES (?)', [2]);
    assert.equal(Number((await store.get<{ n: number }>('SELECT COUNT(*) AS n FROM coalesced_fail'))!.n), 1);
  } finally {
    await dispose();
  }
});
