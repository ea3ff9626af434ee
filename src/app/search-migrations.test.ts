/**
 * Migration 812 (search_texts rebuilt without a sequence row written per copy, where the store's
 * monotonic id writes one) carries every search row with its id, and the prompts and answers of
 * later calls are copied, indexed and found above them, newest first.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startScriptedModel } from '../dev/scripted-model/index.ts';
import { invokeSource, putResponseSource } from '../sources/index.ts';
import { migrate } from '../store/index.ts';
import type { Store } from '../store/store.ts';
import { searchTexts } from '../surfaces/http/pages/search-read.ts';
import { describeEachStore } from '../testing/each-store.ts';
import { migrations } from './migrations.ts';

const REPLY = { kind: 'final_patch', patch: { narration: 'Bob waits by the zebra crossing.' } };

const call = async (store: Store, env: Record<string, string>, words: string) => {
  const source = await putResponseSource(store, {
    version: 1,
    interface: { name: 'llm_chat_completions', model: 'scripted-1', schema_delivery: 'response_format' },
  });
  const out = await invokeSource(store, {
    source,
    request: { messages: [{ role: 'user', content: words }] },
    kind: 'manual',
    env,
  });
  assert.equal(out.ok, true, out.error?.message);
  return out.llm_call_id!;
};

const searchRows = (store: Store) =>
  store.all<{ search_id: number; kind: string; ref_id: string; text: string }>(
    'SELECT search_id, kind, ref_id, text FROM search_texts ORDER BY search_id',
  );

describeEachStore('migration 812: search_texts without a sequence row per copy', (factory) => {
  test('carries every search row with its id; later calls are copied above them and found newest first', async () => {
    const { store, dispose } = await factory.open(migrations.filter((m) => m.id < 812));
    const model = await startScriptedModel({
      script: { rules: [], default: { json: REPLY, chunk_chars: 8 } },
    });
    try {
      const env = { NOEMA_LLM_BASE_URL: model.url };
      const first = await call(store, env, 'Where is the zebra alpha?');
      const before = await searchRows(store);
      assert.deepEqual(
        before.map((r) => [r.kind, r.ref_id]),
        [
          ['prompt', first],
          ['answer', first],
        ],
      );

      const report = await migrate(store, migrations);
      assert.deepEqual(
        report.applied.map((m) => m.id),
        migrations.filter((m) => m.id >= 812).map((m) => m.id),
      );
      assert.deepEqual(await searchRows(store), before);

      const second = await call(store, env, 'Where is the zebra beta?');
      const after = await searchRows(store);
      assert.deepEqual(after.slice(0, 2), before);
      assert.deepEqual(
        after.slice(2).map((r) => [r.kind, r.ref_id]),
        [
          ['prompt', second],
          ['answer', second],
        ],
      );
      assert.ok(after[2]!.search_id > before[1]!.search_id);

      const found = await searchTexts(store, { q: 'zebra' });
      assert.deepEqual(
        found.items.map((h) => [h.kind, h.ref_id]),
        [
          ['answer', second],
          ['prompt', second],
          ['answer', first],
          ['prompt', first],
        ],
      );
      assert.deepEqual(
        (await searchTexts(store, { q: 'alpha' })).items.map((h) => [h.kind, h.ref_id]),
        [['prompt', first]],
      );
    } finally {
      await model.close();
      await dispose();
    }
  });

  test('an LLM call commits no sequence row for its search copies', {
    skip:
      factory.kind !== 'sqlite' &&
      "PostgreSQL's BIGSERIAL draws from a sequence object, not from a row written in the call's commits",
  }, async () => {
    const { store, dispose } = await factory.open();
    const model = await startScriptedModel({
      script: { rules: [], default: { json: REPLY, chunk_chars: 8 } },
    });
    try {
      await call(store, { NOEMA_LLM_BASE_URL: model.url }, 'Where is the zebra?');
      assert.equal((await searchRows(store)).length, 2);
      const sequences = await store.all(
        "SELECT name FROM sqlite_master WHERE name = 'sqlite_sequence' AND sql IS NOT NULL",
      );
      const rows = sequences.length
        ? await store.all("SELECT seq FROM sqlite_sequence WHERE name = 'search_texts'")
        : [];
      assert.deepEqual(rows, []);
    } finally {
      await model.close();
      await dispose();
    }
  });
});
