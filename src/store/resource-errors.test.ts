/**
 * Store failures caused by resources or limits, raised for real by each backend, come out as
 * typed errors rather than driver errors: a full database is STORE_UNAVAILABLE (retryable), a
 * value over a store limit is INVALID_INPUT, a statement cancelled by a timeout is STORE_BUSY.
 * Each fault is one only its backend can raise on demand (SQLite: a page limit; PostgreSQL: the
 * btree row limit and statement_timeout), so each test names the store it runs on.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { NoemaError } from '../core/errors.ts';
import { openTestStore, selectedStores } from '../testing/stores.ts';

const noSqlite = !selectedStores().includes('sqlite') && 'SQLite is not in STORES';
const noPostgres = !selectedStores().includes('postgres') && 'PostgreSQL is not in STORES';

async function typedFailure(work: Promise<unknown>): Promise<NoemaError> {
  try {
    await work;
  } catch (err) {
    assert.ok(err instanceof NoemaError, `expected a NoemaError, got ${String(err)}`);
    return err;
  }
  assert.fail('the statement succeeded');
}

test('SQLite: a database that is full answers STORE_UNAVAILABLE, retryable, and keeps serving reads', {
  skip: noSqlite,
}, async () => {
  const ts = await openTestStore('sqlite', null);
  try {
    await ts.store.run('CREATE TABLE blobs (id INTEGER PRIMARY KEY, body BLOB NOT NULL)');
    await ts.store.run('INSERT INTO blobs (body) VALUES (?)', [randomBytes(100)]);
    const pages = Number((await ts.store.get<{ page_count: number }>('PRAGMA page_count'))?.page_count);
    await ts.store.get(`PRAGMA max_page_count = ${pages + 2}`);
    const err = await typedFailure(
      ts.store.transaction(async (tx) => {
        for (let i = 0; i < 50; i++) await tx.run('INSERT INTO blobs (body) VALUES (?)', [randomBytes(4096)]);
      }),
    );
    assert.equal(err.code, 'STORE_UNAVAILABLE');
    assert.equal(err.retryable, true);
    assert.equal(Number((await ts.store.get<{ n: number }>('SELECT count(*) AS n FROM blobs'))?.n), 1);
  } finally {
    await ts.dispose();
  }
});

test('PostgreSQL: a value over the btree row limit is INVALID_INPUT and writes nothing', {
  skip: noPostgres,
}, async () => {
  const ts = await openTestStore('postgres', null);
  try {
    await ts.store.run('CREATE TABLE keyed (k TEXT PRIMARY KEY)');
    // Incompressible text, so the index row really exceeds the limit (54000).
    const huge = randomBytes(6000).toString('hex');
    const err = await typedFailure(ts.store.run('INSERT INTO keyed (k) VALUES (?)', [huge]));
    assert.equal(err.code, 'INVALID_INPUT');
    assert.equal((err.details as { sqlstate?: string }).sqlstate, '54000');
    assert.equal(Number((await ts.store.get<{ n: number }>('SELECT count(*) AS n FROM keyed'))?.n), 0);
  } finally {
    await ts.dispose();
  }
});

test('PostgreSQL: a statement cancelled by statement_timeout is STORE_BUSY, retryable', {
  skip: noPostgres,
}, async () => {
  const ts = await openTestStore('postgres', null);
  try {
    const err = await typedFailure(
      ts.store.transaction(async (tx) => {
        await tx.get("SELECT set_config('statement_timeout', '50', true)");
        await tx.get('SELECT pg_sleep(2)');
      }),
    );
    assert.equal(err.code, 'STORE_BUSY');
    assert.equal(err.retryable, true);
    assert.equal(Number((await ts.store.get<{ one: number }>('SELECT 1 AS one'))?.one), 1);
  } finally {
    await ts.dispose();
  }
});
