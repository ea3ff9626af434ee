/**
 * Statement caches stay bounded however SQL varies with input: SQLite's prepared-statement cache
 * is an LRU, and PostgreSQL names only fixed-shape SQL (a varying `IN (?, …)` list runs unnamed),
 * so a connection does not pile up one prepared statement per list length.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachStore } from '../testing/each-store.ts';
import { SQLITE_STATEMENT_CACHE, SqliteStore } from './sqlite/sqlite-store.ts';

const inList = (n: number) => Array.from({ length: n }, () => '?').join(', ');

describeEachStore('statement caches', (factory) => {
  test('queries whose IN list length varies stay correct and leave no prepared statement per length', async () => {
    await factory.withStore(async ({ store }) => {
      const lengths = SQLITE_STATEMENT_CACHE + 20;
      await store.transaction(async (tx) => {
        for (let n = 1; n <= lengths; n += 1) {
          const ids = Array.from({ length: n }, (_, i) => i + 1);
          const row = await tx.get<{ n: number }>(
            `SELECT COUNT(*) AS n FROM (SELECT 1 AS id UNION ALL SELECT ${n} AS id) t WHERE id IN (${inList(n)})`,
            ids,
          );
          assert.equal(Number(row?.n), 2, `length ${n}`);
        }
        // What PostgreSQL holds prepared on this connection (the view is per session); SQLite has no
        // such catalog, its bound is the cache size below.
        if (store.capabilities.concurrentWriters) {
          const prepared = await tx.get<{ n: number }>(
            "SELECT COUNT(*) AS n FROM pg_prepared_statements WHERE statement LIKE '%UNION ALL SELECT%' AND statement NOT LIKE '%pg_prepared%'",
          );
          assert.ok(Number(prepared?.n) <= 1, `${prepared?.n} named statements piled up`);
        }
      });
      if (store instanceof SqliteStore) assert.ok(store.cachedStatements <= SQLITE_STATEMENT_CACHE);
      // After eviction, earlier statements are prepared again and still answer correctly.
      assert.equal(
        (await store.get<{ v: string }>('SELECT ? AS v', ['still prepared']))?.v,
        'still prepared',
      );
    });
  });
});
