/** Conformance: the migration runner applies, re-runs, and refuses newer schemas identically on every backend. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { StoreFactory } from '../../testing/each-store.ts';
import { type Migration, migrate } from '../migrations.ts';

const v1: Migration[] = [
  { id: 1, name: 'one', up: (d) => [`CREATE TABLE m1 (id ${d.autoId}, v TEXT)`] },
  { id: 2, name: 'two', up: () => ['CREATE INDEX m1_v ON m1 (v)', 'CREATE TABLE m2 (k TEXT PRIMARY KEY)'] },
];

async function tables(store: Awaited<ReturnType<StoreFactory['open']>>['store']): Promise<string[]> {
  return store.tableNames();
}

export function migrationSpecs(factory: StoreFactory): void {
  test('a fresh store gets every migration, recorded in schema_migrations', async () => {
    const { store, dispose } = await factory.open(null);
    try {
      const report = await migrate(store, v1);
      assert.deepEqual(
        report.applied.map((m) => m.id),
        [1, 2],
      );
      assert.deepEqual(await tables(store), ['m1', 'm2', 'schema_migrations']);
      const recorded = await store.all<{ id: number; name: string }>(
        'SELECT id, name FROM schema_migrations ORDER BY id',
      );
      assert.deepEqual(
        recorded.map((r) => [Number(r.id), r.name]),
        [
          [1, 'one'],
          [2, 'two'],
        ],
      );
    } finally {
      await dispose();
    }
  });

  test('re-running migrations applies nothing; a longer list applies only the new ones', async () => {
    const { store, dispose } = await factory.open(null);
    try {
      await migrate(store, v1);
      assert.deepEqual((await migrate(store, v1)).applied, []);
      const v2 = [...v1, { id: 3, name: 'three', up: () => ['CREATE TABLE m3 (k TEXT)'] }];
      assert.deepEqual(
        (await migrate(store, v2)).applied.map((m) => m.id),
        [3],
      );
    } finally {
      await dispose();
    }
  });

  test('opening a current store checks migrations with one read and no write transaction', async () => {
    const { store, dispose } = await factory.open(null);
    try {
      await migrate(store, v1);
      let transactions = 0;
      const counting = new Proxy(store, {
        get(target, prop) {
          if (prop === 'transaction') {
            return (...args: Parameters<typeof store.transaction>) => {
              transactions++;
              return target.transaction(...args);
            };
          }
          const v = Reflect.get(target, prop);
          return typeof v === 'function' ? v.bind(target) : v;
        },
      });
      assert.deepEqual(await migrate(counting, v1), { applied: [], current: 2 });
      assert.equal(transactions, 0);
      const v2 = [...v1, { id: 3, name: 'three', up: () => ['CREATE TABLE m3 (k TEXT)'] }];
      assert.deepEqual(
        (await migrate(counting, v2)).applied.map((m) => m.id),
        [3],
      );
      assert.equal(transactions, 1, 'a pending migration takes the locked path');
    } finally {
      await dispose();
    }
  });

  test('a schema newer than the code is refused with SCHEMA_TOO_NEW and changes nothing', async () => {
    const { store, dispose } = await factory.open(null);
    try {
      const v3 = [...v1, { id: 3, name: 'three', up: () => ['CREATE TABLE m3 (k TEXT)'] }];
      await migrate(store, v3);
      const older = [v1[0]!, { id: 4, name: 'other', up: () => ['CREATE TABLE m4 (k TEXT)'] }];
      await assert.rejects(migrate(store, older), (err: { code?: string; message: string }) => {
        assert.equal(err.code, 'SCHEMA_TOO_NEW');
        assert.match(err.message, /newer than this Noema/);
        return true;
      });
      assert.deepEqual(await tables(store), ['m1', 'm2', 'm3', 'schema_migrations']);
    } finally {
      await dispose();
    }
  });

  test('a failing migration applies nothing at all', async () => {
    const { store, dispose } = await factory.open(null);
    try {
      const bad = [...v1, { id: 3, name: 'bad', up: () => ['CREATE TABLE m3 (k TEXT)', 'THIS IS NOT SQL'] }];
      await assert.rejects(migrate(store, bad));
      assert.deepEqual(await tables(store), []);
    } finally {
      await dispose();
    }
  });

  test('migrating concurrently from several connections applies each migration once', async () => {
    const { store, dispose, url, kind } = await factory.open(null);
    try {
      const { openStore, parseStoreTarget } = await import('../open.ts');
      const others = await Promise.all([1, 2, 3].map(() => openStore(parseStoreTarget(url))));
      try {
        const reports = await Promise.all([store, ...others].map((s) => migrate(s, v1)));
        const total = reports.reduce((sum, r) => sum + r.applied.length, 0);
        assert.equal(total, 2, `${kind}: each migration applied exactly once`);
      } finally {
        await Promise.all(others.map((s) => s.close()));
      }
    } finally {
      await dispose();
    }
  });
}
