/**
 * Conformance: the full-text primitive follows every write to its table — single and bulk inserts,
 * updates of the text or of a filter (one row or many), deletes, rolled-back writes — and a rebuild
 * on existing rows (`indexDdl` on a filled table, `upgradeIndexDdl`) finds exactly the rows. Each
 * search is compared with the newest matching rows computed from the table itself. A deferred index
 * (indexed in batches and when a reader catches up) is exact once caught up.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { StoreFactory } from '../../testing/each-store.ts';
import { type Queryable, type Store, searchWords } from '../store.ts';

const INDEX = ['docs', 'id', 'body', ['scope']] as const;
const QUERIES = ['apple', 'pear', 'apple pear', 'common', 'plum', 'Apple, PEAR!'];
const SCOPES = ['a', 'b', undefined];
/** Small, so that the newest matches are a cut of the matching rows. */
const LIMIT = 5;

async function createDocs(store: Store): Promise<void> {
  await store.run(`CREATE TABLE docs (id ${store.dialect.autoId}, scope TEXT NOT NULL, body TEXT NOT NULL)`);
}

/**
 * Every search of QUERIES × SCOPES equals the newest LIMIT matching rows read from the table (for a
 * deferred index, after the reader's catch-up).
 */
async function assertSearchesExact(
  db: Queryable & Pick<Store, 'dialect'>,
  step: string,
  deferred = false,
): Promise<void> {
  if (deferred) for (const sql of db.dialect.fullText.catchUpSql('docs', 'id', 'body')) await db.run(sql);
  const rows = await db.all<{ id: number; scope: string; body: string }>(
    'SELECT id, scope, body FROM docs ORDER BY id DESC',
  );
  for (const text of QUERIES) {
    const words = searchWords(text);
    for (const scope of SCOPES) {
      const expected = rows
        .filter(
          (r) =>
            (scope === undefined || r.scope === scope) && searchWords(r.body).some((w) => words.includes(w)),
        )
        .slice(0, LIMIT)
        .map((r) => Number(r.id));
      // The query of this text and scope, with `more` of the spec's options.
      const matchOf = (more: { before?: number; columns?: readonly string[] } = {}) => {
        const m = db.dialect.fullText.matchQuery({
          table: 'docs',
          id: 'id',
          column: 'body',
          text,
          filters: scope === undefined ? {} : { scope },
          limit: LIMIT,
          ...more,
        });
        assert.ok(m);
        return m;
      };
      const match = matchOf();
      const found = (await db.all<{ id: number }>(match.sql, match.params))
        .map((r) => Number(r.id))
        .sort((x, y) => y - x);
      assert.deepEqual(found, expected, `${step}: "${text}" in ${scope ?? 'every scope'}`);
      // The same rows with their columns instead of their ids.
      const withColumns = matchOf({ columns: ['id', 'scope', 'body'] });
      const rowsFound = (
        await db.all<{ id: number; scope: string; body: string }>(withColumns.sql, withColumns.params)
      )
        .map((r) => ({ id: Number(r.id), scope: r.scope, body: r.body }))
        .sort((x, y) => y.id - x.id);
      assert.deepEqual(
        rowsFound,
        rows.filter((r) => expected.includes(Number(r.id))).map((r) => ({ ...r, id: Number(r.id) })),
        `${step}: "${text}" in ${scope ?? 'every scope'}, as rows`,
      );
      // The next page: the newest matches older than the last one found.
      const before = expected.at(-1);
      if (before === undefined) continue;
      const older = rows
        .filter(
          (r) =>
            Number(r.id) < before &&
            (scope === undefined || r.scope === scope) &&
            searchWords(r.body).some((w) => words.includes(w)),
        )
        .slice(0, LIMIT)
        .map((r) => Number(r.id));
      const page2 = matchOf({ before });
      const found2 = (await db.all<{ id: number }>(page2.sql, page2.params))
        .map((r) => Number(r.id))
        .sort((x, y) => y - x);
      assert.deepEqual(found2, older, `${step}: "${text}" in ${scope ?? 'every scope'} before ${before}`);
    }
  }
}

const insert = (store: Queryable, scope: string, body: string) =>
  store.run('INSERT INTO docs (scope, body) VALUES (?, ?)', [scope, body]);

export function fullTextSpecs(factory: StoreFactory): void {
  test('the index follows inserts, updates of text and filters, deletes and rollbacks', () =>
    factory.withStore(async ({ store }) => {
      await createDocs(store);
      for (const sql of store.dialect.fullText.indexDdl(...INDEX)) await store.run(sql);
      await insert(store, 'a', 'an apple a day');
      await insert(store, 'b', 'a pear and an apple');
      await insert(store, 'a', 'common ground');
      await assertSearchesExact(store, 'single inserts');
      // One statement of many rows (a bulk insert).
      const values = Array.from({ length: 40 }, (_, i) => [
        i % 3 === 0 ? 'b' : 'a',
        `common ${i % 4 === 0 ? 'apple' : 'fig'} ${i % 5 === 0 ? 'pear' : 'kiwi'} n${i}`,
      ]);
      await store.run(
        `INSERT INTO docs (scope, body) VALUES ${values.map(() => '(?, ?)').join(', ')}`,
        values.flat(),
      );
      await assertSearchesExact(store, 'bulk insert');
      // The text of one row: its old words no longer match it, its new ones do.
      const newest = await store.get<{ id: number }>('SELECT max(id) AS id FROM docs');
      await store.run('UPDATE docs SET body = ? WHERE id = ?', ['plum only', Number(newest?.id)]);
      await assertSearchesExact(store, 'text updated');
      // A filter: the row moves to the other scope.
      await store.run("UPDATE docs SET scope = 'b' WHERE body = 'common ground'");
      await assertSearchesExact(store, 'filter updated');
      // Many rows in one statement, text and filter at once.
      await store.run("UPDATE docs SET body = 'pear plum', scope = 'a' WHERE body LIKE '%kiwi n1%'");
      await assertSearchesExact(store, 'many rows updated');
      await store.run("DELETE FROM docs WHERE body LIKE '%fig%' AND scope = 'a'");
      await assertSearchesExact(store, 'rows deleted');
      await store.run("DELETE FROM docs WHERE scope = 'b'");
      await assertSearchesExact(store, 'a scope deleted');
      await assert.rejects(
        store.transaction(async (tx) => {
          await insert(tx, 'a', 'apple pear plum rolled back');
          await tx.run("UPDATE docs SET body = 'nothing left' WHERE scope = 'a'");
          await assertSearchesExact(tx, 'inside the transaction');
          throw new Error('roll back');
        }),
        /roll back/,
      );
      await assertSearchesExact(store, 'rolled back');
    }));

  test('a deferred index finds every committed row once caught up, across its batches, updates, deletes and rollbacks', () =>
    factory.withStore(async ({ store }) => {
      await createDocs(store);
      for (let i = 0; i < 10; i++)
        await insert(store, i % 2 ? 'a' : 'b', `${i % 3 ? 'common' : 'apple'} n${i}`);
      for (const sql of store.dialect.fullText.indexDdl(...INDEX, { deferred: true })) await store.run(sql);
      await assertSearchesExact(store, 'built on existing rows', true);
      // Single rows, each committed on its own, as the writers of a hot table write them, past
      // several batch boundaries; the searches between them catch up at other points.
      for (let i = 0; i < 150; i++) {
        await insert(store, i % 3 ? 'a' : 'b', `${i % 4 ? 'fig' : 'apple'} ${i % 5 ? 'kiwi' : 'pear'} n${i}`);
        if (i % 37 === 0) await assertSearchesExact(store, `after ${i + 1} single inserts`, true);
      }
      await assertSearchesExact(store, 'single inserts', true);
      // Written after the last catch-up and changed before the next: the index takes their last text.
      await insert(store, 'a', 'apple fresh');
      await insert(store, 'b', 'pear fresh');
      await store.run("UPDATE docs SET body = 'plum fresh' WHERE body = 'apple fresh'");
      await store.run("DELETE FROM docs WHERE body = 'pear fresh'");
      await assertSearchesExact(store, 'changed before being indexed', true);
      // Rows the index holds already.
      await store.run("UPDATE docs SET body = 'plum only', scope = 'b' WHERE body LIKE 'apple kiwi%'");
      await store.run("DELETE FROM docs WHERE body LIKE 'fig pear%'");
      await assertSearchesExact(store, 'indexed rows changed', true);
      const values = Array.from({ length: 70 }, (_, i) => [i % 2 ? 'a' : 'b', `common apple n${i}`]);
      await store.run(
        `INSERT INTO docs (scope, body) VALUES ${values.map(() => '(?, ?)').join(', ')}`,
        values.flat(),
      );
      await assertSearchesExact(store, 'bulk insert across a batch', true);
      await assert.rejects(
        store.transaction(async (tx) => {
          for (let i = 0; i < 70; i++) await insert(tx, 'a', `pear rolled back ${i}`);
          await assertSearchesExact(tx, 'inside the transaction', true);
          throw new Error('roll back');
        }),
        /roll back/,
      );
      await insert(store, 'a', 'apple after the rollback');
      await assertSearchesExact(store, 'rolled back', true);
      for (const sql of store.dialect.fullText.replaceIndexFunctionsDdl(...INDEX, { deferred: true }))
        await store.run(sql);
      await insert(store, 'b', 'apple after its functions were replaced');
      await assertSearchesExact(store, 'functions replaced in place', true);
    }));

  test('an index built on existing rows, upgraded or its functions replaced in place, finds exactly them and follows writes', () =>
    factory.withStore(async ({ store }) => {
      await createDocs(store);
      for (let i = 0; i < 30; i++)
        await insert(store, i % 2 ? 'a' : 'b', `${i % 3 ? 'common' : 'apple'} ${i % 7 ? 'fig' : 'pear'}`);
      for (const sql of store.dialect.fullText.indexDdl(...INDEX)) await store.run(sql);
      await assertSearchesExact(store, 'built on existing rows');
      for (const sql of store.dialect.fullText.upgradeIndexDdl(...INDEX)) await store.run(sql);
      await assertSearchesExact(store, 'upgraded');
      for (const sql of store.dialect.fullText.replaceIndexFunctionsDdl(...INDEX)) await store.run(sql);
      await assertSearchesExact(store, 'its functions replaced in place');
      await insert(store, 'a', 'apple after the upgrade');
      await store.run("UPDATE docs SET body = 'plum' WHERE body = 'apple pear'");
      await store.run("DELETE FROM docs WHERE body = 'common pear'");
      await assertSearchesExact(store, 'written after the upgrade');
    }));
}
