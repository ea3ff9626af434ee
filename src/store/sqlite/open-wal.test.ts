/**
 * Two processes opening one new database file together (`noema dev cluster` starts the API and its
 * workers at once): switching the file to WAL takes its write lock, and SQLite answers that switch
 * BUSY at once, without its busy handler, while another connection holds the write lock. The store waits for the file, as for any lock, up to its busy timeout. Pinned to SQLite: the
 * journal mode is SQLite's; PostgreSQL has nothing of the kind.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { Worker } from 'node:worker_threads';
import { NoemaError } from '../../core/errors.ts';
import { testTempDir } from '../../testing/temp-dir.ts';
import { SqliteStore } from './sqlite-store.ts';

/**
 * Another thread holding `path`'s write lock (`BEGIN IMMEDIATE`, the rollback journal's reserved
 * lock) for `holdMs` (null: until it is sent 'release'), as another process's switch to WAL or its
 * migrations do: posts 'held' once it holds it, 'released' once it let it go.
 */
function writerHolding(path: string, holdMs: number | null): Worker {
  return new Worker(
    `const { DatabaseSync } = require('node:sqlite');
     const { parentPort, workerData } = require('node:worker_threads');
     const db = new DatabaseSync(workerData.path);
     db.exec('BEGIN IMMEDIATE');
     const release = () => { db.exec('COMMIT'); db.close(); parentPort.postMessage('released'); parentPort.close(); };
     parentPort.postMessage('held');
     if (workerData.holdMs === null) parentPort.once('message', release);
     else setTimeout(release, workerData.holdMs);`,
    { eval: true, workerData: { path, holdMs } },
  );
}

function journalMode(path: string): string {
  const db = new DatabaseSync(path);
  try {
    return (db.prepare('PRAGMA journal_mode').get() as { journal_mode: string }).journal_mode;
  } finally {
    db.close();
  }
}

/** A new database file in the rollback journal's mode, as SQLite creates one. */
function newDatabase(): string {
  const path = join(testTempDir('noema-open-wal-'), 'noema.db');
  const db = new DatabaseSync(path);
  db.exec('CREATE TABLE made_before (x INTEGER)');
  db.close();
  return path;
}

test('a store opened while another connection writes its new file switches it to WAL once that write ends', async () => {
  const path = newDatabase();
  const writer = writerHolding(path, 300);
  const messages: string[] = [];
  writer.on('message', (m: string) => messages.push(m));
  await once(writer, 'message');
  const store = new SqliteStore({ path, busyTimeoutMs: 10_000 });
  try {
    assert.deepEqual(messages, ['held'], 'the store was opened while the write lock was held');
    await once(writer, 'exit');
    assert.deepEqual(messages, ['held', 'released']);
    await store.run('INSERT INTO made_before (x) VALUES (1)');
    assert.equal(journalMode(path), 'wal');
  } finally {
    await store.close();
    await writer.terminate();
  }
});

test('a write lock held past the busy timeout: the store is not opened, a typed STORE_BUSY error, the file unchanged', async () => {
  const path = newDatabase();
  // Held until the store has given up, however slowly this machine runs.
  const writer = writerHolding(path, null);
  try {
    await once(writer, 'message');
    const started = performance.now();
    assert.throws(
      () => new SqliteStore({ path, busyTimeoutMs: 200 }),
      (err: unknown) =>
        err instanceof NoemaError &&
        err.code === 'STORE_BUSY' &&
        /the database is busy/.test(err.message) &&
        performance.now() - started >= 200,
    );
    writer.postMessage('release');
    await once(writer, 'exit');
    assert.equal(journalMode(path), 'delete', 'the file is left in the journal mode it had');
  } finally {
    await writer.terminate();
  }
});
