/**
 * PostgreSQL's full-text index upgraded from its previous layout (a generated `tsvector` column under
 * a GIN index) to the posting table: the postings are exactly the words of the rows already there,
 * the old column is gone, and later writes (a TRUNCATE too) keep the postings in step. PostgreSQL only: SQLite's
 * layout did not change (its `upgradeIndexDdl` is empty; the shared specs cover both stores).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openTestStore, selectedStores } from '../../testing/stores.ts';
import { searchWords } from '../store.ts';

const INDEX = ['docs', 'id', 'body', ['scope']] as const;

test('upgradeIndexDdl replaces the tsvector + GIN layout by postings of the rows already stored', {
  skip: !selectedStores().includes('postgres') && 'PostgreSQL is not in STORES',
}, async () => {
  const { store, dispose } = await openTestStore('postgres', null);
  try {
    await store.run('CREATE TABLE docs (id BIGSERIAL PRIMARY KEY, scope TEXT NOT NULL, body TEXT NOT NULL)');
    // The previous layout, as its indexDdl made it.
    await store.run(
      `ALTER TABLE docs ADD COLUMN body_tsv tsvector GENERATED ALWAYS AS (to_tsvector('simple', body) || to_tsvector('simple', scope)) STORED`,
    );
    await store.run('CREATE INDEX docs_body_tsv ON docs USING GIN (body_tsv)');
    const bodies = ['Green tea, green!', 'black coffee', 'tea and coffee', 'sa1 plain words'];
    for (let i = 0; i < 12; i++)
      await store.run('INSERT INTO docs (scope, body) VALUES (?, ?)', [
        i % 3 ? 'sa1' : 'sb2',
        bodies[i % 4] as string,
      ]);
    for (const sql of store.dialect.fullText.upgradeIndexDdl(...INDEX)) await store.run(sql);

    const columns = await store.all<{ column_name: string }>(
      "SELECT column_name FROM information_schema.columns WHERE table_name = 'docs' ORDER BY column_name",
    );
    assert.deepEqual(
      columns.map((c) => c.column_name),
      ['body', 'id', 'scope'],
    );
    const postings = async () =>
      (
        await store.all<{ word: string; scope: string; id: number }>(
          'SELECT word, scope, id FROM docs_body_words ORDER BY id, word',
        )
      ).map((p) => `${p.id} ${p.scope} ${p.word}`);
    const expected = async () =>
      (
        await store.all<{ id: number; scope: string; body: string }>(
          'SELECT id, scope, body FROM docs ORDER BY id',
        )
      )
        .flatMap((r) =>
          searchWords(r.body)
            .sort()
            .map((w) => `${r.id} ${r.scope} ${w}`),
        )
        .sort((x, y) => Number.parseInt(x, 10) - Number.parseInt(y, 10) || (x < y ? -1 : 1));
    // One posting per distinct word of each row; the scope is a column, not a word.
    assert.deepEqual(await postings(), await expected());

    const search = async (text: string, scope?: string) => {
      const m = store.dialect.fullText.matchQuery({
        table: 'docs',
        id: 'id',
        column: 'body',
        text,
        filters: scope ? { scope } : {},
        limit: 3,
      });
      assert.ok(m);
      return (await store.all<{ id: number }>(m.sql, m.params))
        .map((r) => Number(r.id))
        .sort((a, b) => b - a);
    };
    assert.deepEqual(await search('green'), [9, 5, 1]);
    assert.deepEqual(await search('GREEN', 'sa1'), [9, 5]);
    // The scope's own value is not a word of the text any more: only a row whose body holds it matches.
    assert.deepEqual(await search('sa1'), [12, 8, 4]);

    await store.run("UPDATE docs SET body = 'green plum' WHERE id = 12");
    await store.run('DELETE FROM docs WHERE id IN (1, 5)');
    await store.run("INSERT INTO docs (scope, body) VALUES ('sb2', 'plum'), ('sa1', 'green again')");
    assert.deepEqual(await postings(), await expected());
    assert.deepEqual(await search('green'), [14, 12, 9]);
    assert.deepEqual(await search('plum', 'sb2'), [13]);
    await store.run('TRUNCATE docs');
    assert.deepEqual(await postings(), []);
  } finally {
    await dispose();
  }
});
