/**
 * An idle pooled connection killed by the server (a restart, an operator's pg_terminate_backend)
 * neither crashes the process nor vanishes silently: one line with the store's location, then the
 * pool serves from a new connection; a closed store's connections are closed when `close()` answers.
 * PostgreSQL only: SQLite has no connection pool.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import { incidentSink } from '../../core/incident-log.ts';
import { createTestLocation, openTestStore, selectedStores } from '../../testing/stores.ts';
import { waitUntil } from '../../testing/wait.ts';
import { PostgresStore } from './postgres-store.ts';

test('a terminated idle pool connection is logged once and the store keeps serving', {
  skip: !selectedStores().includes('postgres') && 'PostgreSQL is not in STORES',
}, async () => {
  const ts = await openTestStore('postgres', null);
  const lines: string[] = [];
  const write = incidentSink.write;
  incidentSink.write = (line) => void lines.push(line);
  const admin = new pg.Client({ connectionString: ts.url });
  try {
    await admin.connect();
    // Several idle connections in the pool, then all of them terminated at once. Read transactions: a
    // write would have the store take a batch of its full-text queues 50 ms later, on a connection of
    // its own that the termination below can catch mid-batch (a second, different incident).
    await Promise.all(
      [1, 2, 3].map(() => ts.store.transaction((tx) => tx.get('SELECT pg_sleep(0.05)'), { mode: 'read' })),
    );
    await admin.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
    );
    await waitUntil('the pool to report the dead connections', () => lines.length > 0, { timeoutMs: 5000 });
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(lines.length, 1, lines.join('\n'));
    assert.match(lines[0]!, /^noema: PostgreSQL pool at postgres:\/\/.+: an idle connection failed \(/);
    assert.equal(Number((await ts.store.get<{ one: number }>('SELECT 1 AS one'))?.one), 1);
  } finally {
    incidentSink.write = write;
    await admin.end();
    await ts.dispose();
  }
});

test('a connection ended by the server while a transaction holds it between statements fails that transaction, retryable, and the process goes on', {
  skip: !selectedStores().includes('postgres') && 'PostgreSQL is not in STORES',
}, async () => {
  const ts = await openTestStore('postgres', null);
  const write = incidentSink.write;
  incidentSink.write = () => {};
  const admin = new pg.Client({ connectionString: ts.url });
  try {
    await admin.connect();
    const failed = await ts.store
      .transaction(async (tx) => {
        const me = await tx.get<{ pid: number }>('SELECT pg_backend_pid() AS pid');
        // Ended while the transaction awaits something else (a model call, say): no statement is active.
        await admin.query('SELECT pg_terminate_backend($1)', [me!.pid]);
        await new Promise((r) => setTimeout(r, 300));
        return tx.get('SELECT 1 AS one');
      })
      .then(
        () => null,
        (err: unknown) => err as { code?: string; retryable?: boolean; message?: string },
      );
    assert.equal(failed?.code, 'STORE_UNAVAILABLE', String(failed?.message ?? failed));
    assert.equal(failed?.retryable, true);
    assert.equal(Number((await ts.store.get<{ one: number }>('SELECT 1 AS one'))?.one), 1);
  } finally {
    incidentSink.write = write;
    await admin.end();
    await ts.dispose();
  }
});

test('a closed store leaves no connection on the server, so a database dropped right after reports nothing', {
  skip: !selectedStores().includes('postgres') && 'PostgreSQL is not in STORES',
}, async () => {
  const location = await createTestLocation('postgres');
  const admin = new pg.Client({ connectionString: location.url });
  const lines: string[] = [];
  const write = incidentSink.write;
  incidentSink.write = (line) => void lines.push(line);
  try {
    await admin.connect();
    let left = 0;
    // A race while connections closed after `pool.end()` answered: repeated so it shows.
    for (let i = 0; i < 10; i++) {
      const store = await PostgresStore.connect({ url: location.url, backgroundIndexAfterMs: null });
      await Promise.all([1, 2, 3].map(() => store.get('SELECT pg_sleep(0.01)')));
      await store.close();
      const r = await admin.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
      );
      left += r.rows[0]!.n;
    }
    assert.equal(left, 0);
    await admin.end();
    await location.drop();
    assert.deepEqual(lines, []);
  } finally {
    incidentSink.write = write;
    await admin.end().catch(() => {});
    await location.drop().catch(() => {});
  }
});
