// The store's full-text primitive as long-term memory uses it, on both stores: the candidates of a
// query are exactly the newest matching rows of the scope (or of every scope), however the matches
// are spread — dense in the newest rows, sparse, or a few new ones and the rest far older — so every
// walk a store takes to find them (windows of the newest rows, then the index) agrees at its seams.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachStore } from '../../testing/each-store.ts';
import { CANDIDATE_WINDOW } from './index.ts';
import { scopeKey } from './records.ts';

const ROWS = 30_000;
const alice = scopeKey({ scope_kind: 'user', scope_id: 'alice' });
const bob = scopeKey({ scope_kind: 'user', scope_id: 'bob' });

// Row i (1 = oldest) belongs to bob when i % 10 = 0, else to alice. Its words:
// - every: in every row (the newest rows alone are the candidates);
// - dense: one row in 30, everywhere;
// - edge: two of the newest 600 rows, four around row 14 000, then none until the oldest 4 000 rows,
//   one in 50 there;
// - sparse: one row in 400;
// - seam: one in 25 of the newest 600 rows, four around rows 25 000 and 14 000, one in 50 of the oldest
//   4 000: more than the candidates, so the newest are cut in the oldest rows.
const TEXT = `'r' || CAST(i AS TEXT) || ' every'
  || CASE WHEN i % 30 = 0 THEN ' dense' ELSE '' END
  || CASE WHEN (i > ${ROWS - 600} AND i % 250 = 1) OR (i > 14000 AND i <= 14200 AND i % 50 = 1) OR (i <= 4000 AND i % 50 = 1) THEN ' edge' ELSE '' END
  || CASE WHEN i % 400 = 3 THEN ' sparse' ELSE '' END
  || CASE WHEN (i > ${ROWS - 600} AND i % 25 = 1) OR (i > 25000 AND i <= 25200 AND i % 50 = 1)
            OR (i > 14000 AND i <= 14200 AND i % 50 = 1) OR (i <= 4000 AND i % 50 = 1) THEN ' seam' ELSE '' END`;

describeEachStore('long-term memory full-text candidates', (factory) => {
  test('the candidates are exactly the newest matches of the scope, dense, sparse or split by a long gap', () =>
    factory.withStore(async ({ store }) => {
      await store.run(
        `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
         INSERT INTO long_term_memories (scope_kind, scope_id, scope_key, kind, text, meta_json, created_at_ms, updated_at_ms)
         SELECT 'user', CASE WHEN i % 10 = 0 THEN 'bob' ELSE 'alice' END, CASE WHEN i % 10 = 0 THEN ? ELSE ? END,
                'note', ${TEXT}, '{}', i, i FROM n`,
        [ROWS, bob, alice],
      );
      const rows = await store.all<{ memory_id: number; scope_key: string; text: string }>(
        'SELECT memory_id, scope_key, text FROM long_term_memories ORDER BY memory_id DESC',
      );
      assert.equal(rows.length, ROWS);
      for (const text of ['every', 'dense', 'edge', 'sparse', 'seam', 'edge sparse', 'dense sparse']) {
        for (const scope of [alice, bob, undefined]) {
          const words = text.split(' ');
          const expected = rows
            .filter(
              (r) =>
                (scope === undefined || r.scope_key === scope) &&
                r.text.split(' ').some((w) => words.includes(w)),
            )
            .slice(0, CANDIDATE_WINDOW)
            .map((r) => Number(r.memory_id));
          const match = store.dialect.fullText.matchQuery({
            table: 'long_term_memories',
            id: 'memory_id',
            column: 'text',
            text,
            filters: scope === undefined ? {} : { scope_key: scope },
            limit: CANDIDATE_WINDOW,
          });
          assert.ok(match);
          const found = (await store.all<{ id: number }>(match.sql, match.params))
            .map((r) => Number(r.id))
            .sort((a, b) => b - a);
          assert.deepEqual(found, expected, `"${text}" in ${scope ?? 'every scope'}`);
        }
      }
    }));
});
