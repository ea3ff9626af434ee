/**
 * Migrations given up by the database as busy are tried again. Pinned to PostgreSQL: the fault is a
 * deadlock between the migration's DDL and another session's table locks (a deferred full-text
 * batch did this under load), which SQLite's single writer cannot have.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import pg from 'pg';
import { createTestLocation, selectedStores } from '../testing/stores.ts';
import { type Migration, migrate } from './migrations.ts';
import { openStore } from './open.ts';

const tables: Migration = {
  id: 1,
  name: 'two tables',
  up: () => ['CREATE TABLE busy_a (x INTEGER)', 'CREATE TABLE busy_b (x INTEGER)'],
};
const alterBoth: Migration = {
  id: 2,
  name: 'a column on each',
  up: () => ['ALTER TABLE busy_a ADD COLUMN y INTEGER', 'ALTER TABLE busy_b ADD COLUMN y INTEGER'],
};

test('a migration the database aborts as a deadlock victim is applied on a later try [postgres]', {
  skip: selectedStores().includes('postgres') ? false : 'PostgreSQL is not among the selected stores',
}, async () => {
  const location = await createTestLocation('postgres');
  const other = new pg.Client({ connectionString: location.url });
  await other.connect();
  // The store's sessions look for deadlocks 5 s into a wait (the server's default is 1 s): a
  // deadlock found only when the migration has waited that long, with room for this test's own
  // session to close the cycle first on a loaded machine (after it, the migration looks no more).
  const db = (await other.query('SELECT current_database() AS name')).rows[0].name as string;
  await other.query(`ALTER DATABASE "${db}" SET deadlock_timeout = '5s'`);
  const store = await openStore({ kind: 'postgres', url: location.url }, { migrations: [tables] }).catch(
    async (err: unknown) => {
      await other.end();
      throw err;
    },
  );
  try {
    // The other session reads busy_b, and waits longer still before looking for deadlocks: the
    // migration's session finds the deadlock and is its victim.
    await other.query('BEGIN');
    await other.query("SET LOCAL deadlock_timeout = '20s'");
    await other.query('SELECT * FROM busy_b');
    const migrating = migrate(store, [tables, alterBoth]);
    migrating.catch(() => {});
    // The migration holds busy_a and waits for busy_b.
    for (let i = 0; i < 400; i++) {
      const waiting = await other.query(
        "SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
      );
      if (waiting.rowCount) break;
      await delay(25);
    }
    // Reading busy_a now closes the cycle; the migration's transaction is rolled back.
    await other.query('SELECT * FROM busy_a');
    await other.query('COMMIT');
    const report = await migrating;
    assert.deepEqual(report.applied, [{ id: 2, name: 'a column on each' }]);
    const columns = await store.all<{ table_name: string }>(
      "SELECT table_name FROM information_schema.columns WHERE column_name = 'y' ORDER BY table_name",
    );
    assert.deepEqual(
      columns.map((c) => c.table_name),
      ['busy_a', 'busy_b'],
    );
  } finally {
    await other.end().catch(() => {});
    await store.close();
    await location.drop();
  }
});
