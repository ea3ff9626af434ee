/**
 * WAL checkpoints off the commit path (SQLite only: PostgreSQL has no WAL file of ours to bound).
 * The log stays bounded whether the event loop turns between commits (the worker checkpoints) or
 * never does (the store checkpoints inline), and every commit stays readable from a new connection.
 */
import assert from 'node:assert/strict';
import { existsSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { testTempDir } from '../../testing/temp-dir.ts';
import { STORE_BUSY } from '../store.ts';
import {
  COMMITS_PER_CHECKPOINT,
  createCheckpointer,
  INLINE_AFTER_COMMITS,
  RESTART_AFTER_FRAMES,
} from './checkpointer.ts';
import { SqliteConnection } from './connection.ts';
import { SqliteStore } from './sqlite-store.ts';

const PAGE = 4096;
const walPages = (path: string) => (existsSync(`${path}-wal`) ? statSync(`${path}-wal`).size / PAGE : 0);
const backfilled = (path: string) => {
  // A second connection's PASSIVE checkpoint reports how much of the log is still uncopied.
  const db = new DatabaseSync(path);
  try {
    const r = db.prepare('PRAGMA wal_checkpoint(PASSIVE)').get() as { log: number; checkpointed: number };
    return r;
  } finally {
    db.close();
  }
};

async function withStore(fn: (store: SqliteStore, path: string) => Promise<void>): Promise<void> {
  const dir = testTempDir('noema-ckpt-');
  const path = join(dir, 'n.db');
  const store = new SqliteStore({ path });
  try {
    await store.run('CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
    await fn(store, path);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const body = 'x'.repeat(3000);

test('commits never checkpoint inline while the worker keeps up, and the WAL is copied back', async () => {
  await withStore(async (store, path) => {
    // Under INLINE_AFTER_COMMITS, so only the worker can have copied anything.
    for (let i = 0; i < 1000; i++) {
      await store.transaction((tx) => tx.run('INSERT INTO t (body) VALUES (?)', [body]));
      // Let the worker's answers in, as any I/O between calls does.
      if (i % 16 === 0) await new Promise((r) => setImmediate(r));
    }
    await new Promise((r) => setTimeout(r, 200));
    const r = backfilled(path);
    // The worker has copied what was asked (about two pages a commit); what is left is less than
    // one request's worth. With no checkpoint all 2000 would be; SQLite's own would leave ~1000.
    const left = r.log - r.checkpointed;
    assert.ok(left < 3 * COMMITS_PER_CHECKPOINT, `uncopied frames: ${left}`);
    const count = await store.get<{ n: number }>('SELECT COUNT(*) AS n FROM t');
    assert.equal(count?.n, 1000);
  });
});

test('a loop that never yields to the event loop still keeps the WAL bounded', async () => {
  await withStore(async (store, path) => {
    // Each commit here is pure microtasks: the worker's replies can never be heard.
    for (let i = 0; i < 3 * INLINE_AFTER_COMMITS; i++) {
      await store.transaction((tx) => tx.run('INSERT INTO t (body) VALUES (?)', [body]));
    }
    const pages = walPages(path);
    // About two pages per commit; without a checkpoint the log would hold every commit's pages.
    assert.ok(pages < 2.5 * 2 * INLINE_AFTER_COMMITS, `WAL holds ${pages} pages`);
    const other = new DatabaseSync(path);
    try {
      assert.equal(
        (other.prepare('SELECT COUNT(*) AS n FROM t').get() as { n: number }).n,
        3 * INLINE_AFTER_COMMITS,
      );
    } finally {
      other.close();
    }
  });
});

test('a loop that never yields never starts the worker, which could not be heard there', async () => {
  // The worker is loaded through process.getBuiltinModule('node:worker_threads') when it starts.
  const getBuiltinModule = process.getBuiltinModule;
  let started = 0;
  process.getBuiltinModule = ((id: string) => {
    if (id === 'node:worker_threads') started++;
    return getBuiltinModule(id);
  }) as typeof process.getBuiltinModule;
  try {
    await withStore(async (store) => {
      for (let i = 0; i < 2 * INLINE_AFTER_COMMITS + 10; i++) {
        await store.transaction((tx) => tx.run('INSERT INTO t (body) VALUES (?)', [body]));
      }
      // The event loop turns: the request the loop made is dropped, the store having checkpointed inline.
      await new Promise((r) => setTimeout(r, 20));
      assert.equal(started, 0, 'the worker started');
      // Commits with the event loop turning between them ask the worker again.
      for (let i = 0; i < COMMITS_PER_CHECKPOINT; i++) {
        await store.transaction((tx) => tx.run('INSERT INTO t (body) VALUES (?)', [body]));
        if (i % 16 === 0) await new Promise((r) => setImmediate(r));
      }
      await new Promise((r) => setTimeout(r, 20));
      assert.equal(started, 1, 'the worker started once');
    });
  } finally {
    process.getBuiltinModule = getBuiltinModule;
  }
});

test('single statements committed on their own (runSync) count as commits: the WAL stays bounded', async () => {
  await withStore(async (store, path) => {
    // Synchronous from start to end: only the inline checkpoint can bound this log.
    for (let i = 0; i < 3 * INLINE_AFTER_COMMITS; i++) {
      assert.notEqual(store.runSync('INSERT INTO t (body) VALUES (?)', [body]), STORE_BUSY);
    }
    const pages = walPages(path);
    assert.ok(pages < 2.5 * 2 * INLINE_AFTER_COMMITS, `WAL holds ${pages} pages`);
    const count = await store.get<{ n: number }>('SELECT COUNT(*) AS n FROM t');
    assert.equal(count?.n, 3 * INLINE_AFTER_COMMITS);
  });
});

test('a log that commits keep from restarting is copied by the worker while commits wait, never on the store thread', async () => {
  // The store's own connection checkpointing (milliseconds of copy and fsync on the event loop) is
  // what this rules out while the worker runs; the worker's connection is not a SqliteConnection.
  const statement = SqliteConnection.prototype.statement;
  let onStoreThread = 0;
  SqliteConnection.prototype.statement = function (sql: string) {
    if (sql.startsWith('PRAGMA wal_checkpoint')) onStoreThread++;
    return statement.call(this, sql);
  };
  // About five frames a commit: the log passes RESTART_AFTER_FRAMES within four requests.
  const big = 'y'.repeat(3 * PAGE);
  const commits = 3 * INLINE_AFTER_COMMITS;
  assert.ok(4 * COMMITS_PER_CHECKPOINT * 5 > RESTART_AFTER_FRAMES && commits * 5 > 2 * RESTART_AFTER_FRAMES);
  try {
    await withStore(async (store, path) => {
      // In bursts of 16 with a pause of 4 ms after each: they race the worker's copies, which
      // still finish within INLINE_AFTER_COMMITS commits.
      for (let i = 0; i < commits; i++) {
        await store.transaction((tx) => tx.run('INSERT INTO t (body) VALUES (?)', [big]));
        if (i % 16 === 0) await new Promise((r) => setTimeout(r, 4));
      }
      // The log restarted: the file (which never shrinks) holds fewer frames than were written,
      // about 15 000 without a restart.
      const pages = walPages(path);
      assert.ok(pages < (commits * 5) / 2, `the WAL grew to ${pages} pages`);
      assert.equal(onStoreThread, 0, 'checkpoints on the store thread');
      const count = await store.get<{ n: number }>('SELECT COUNT(*) AS n FROM t');
      assert.equal(count?.n, commits);
    });
  } finally {
    SqliteConnection.prototype.statement = statement;
  }
});

test('a worker that cannot run answers the copy it was asked for: the store copies the log itself', async () => {
  // Its file cannot be opened there: the worker fails as it starts, and SQLite's own checkpoints
  // come back. The caller holding its writers for the copy must not wait forever.
  const dir = testTempDir('noema-ckpt-');
  let fellBack = 0;
  const errors: unknown[] = [];
  const error = console.error;
  console.error = (...a: unknown[]) => void errors.push(a);
  try {
    const checkpointer = createCheckpointer(join(dir, 'missing', 'n.db'), 1_000, {
      restart: () => {},
      fallback: () => void fellBack++,
    });
    assert.equal(await checkpointer.completeCopy(), false);
    assert.equal(fellBack, 1);
    assert.equal(errors.length, 1, 'one line for the worker that stopped');
    assert.equal(await checkpointer.completeCopy(), false, 'and at once, once stopped');
    await checkpointer.close();
  } finally {
    console.error = error;
    rmSync(dir, { recursive: true, force: true });
  }
});
