/**
 * Migration 812 (search_texts rebuilt without a sequence row written per copy, where the store's
 * monotonic id writes one) carries every search row with its id, and the prompts and answers of
 * later calls are copied, indexed and found above them, newest first. Migration 814: a text longer
 * than SEARCH_TEXT_CHARS is searchable by its first and last half, so the end of a long prompt (a
 * conversation's newest message) is found.
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
import { SEARCH_TEXT_CHARS } from './search-migrations.ts';

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

/** A prompt of `SEARCH_TEXT_CHARS` × 1.5 characters: `first` at its start, `middle` halfway, `last` at its end. */
const longPrompt = (first: string, middle: string, last: string): string => {
  const filler = (n: number) => 'lorem ipsum '.repeat(Math.ceil(n / 12)).slice(0, n);
  const half = (SEARCH_TEXT_CHARS * 3) / 4;
  return `${first} ${filler(half)} ${middle} ${filler(half)} ${last}`;
};

const found = async (store: Store, q: string) =>
  (await searchTexts(store, { q, kind: 'prompt' })).items.map((h) => h.ref_id);

describeEachStore('migration 814: a long text searchable by its first and last half', (factory) => {
  test("a long prompt's last words are found after the migration, its middle is not; a copy made before keeps its first characters", async () => {
    const { store, dispose } = await factory.open(migrations.filter((m) => m.id < 814));
    const model = await startScriptedModel({
      script: { rules: [], default: { json: REPLY, chunk_chars: 64 } },
    });
    try {
      const env = { NOEMA_LLM_BASE_URL: model.url };
      const before = await call(store, env, longPrompt('axolotl', 'narwhal', 'quokka'));
      assert.deepEqual(await found(store, 'axolotl'), [before]);
      assert.deepEqual(await found(store, 'quokka'), []);

      await migrate(store, migrations);
      const after = await call(store, env, longPrompt('axolotl', 'narwhal', 'quokka'));
      assert.deepEqual(await found(store, 'quokka'), [after]);
      assert.deepEqual(await found(store, 'axolotl'), [after, before]);
      // The middle is in the copy made before (its first SEARCH_TEXT_CHARS), not in the new one.
      assert.deepEqual(await found(store, 'narwhal'), [before]);
      const copy = await store.get<{ text: string }>(
        "SELECT text FROM search_texts WHERE kind = 'prompt' AND ref_id = ?",
        [after],
      );
      assert.ok(copy!.text.length <= SEARCH_TEXT_CHARS + 3, `copy of ${copy!.text.length} characters`);
      assert.match(copy!.text, / … /);
      // A short text is copied whole, as before.
      const short = await call(store, env, 'Where is the quokka now?');
      assert.deepEqual(await found(store, 'quokka'), [short, after]);
    } finally {
      await model.close();
      await dispose();
    }
  });
});
