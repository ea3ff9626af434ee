/**
 * Migration 344 (the status CHECK as equalities) carries every row of `source_invocations` and
 * `llm_calls` as it was, and leaves the tables checking, indexing and referencing as before.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { migrations } from '../app/migrations.ts';
import { uuidv7 } from '../core/ids.ts';
import { startScriptedModel } from '../dev/scripted-model/index.ts';
import { migrate } from '../store/index.ts';
import type { Store } from '../store/store.ts';
import { describeEachStore } from '../testing/each-store.ts';
import { writeLegacyCalls } from '../testing/legacy-trace-rows.ts';
import { getSourceInvocation, invokeSource, putJsonSchema, putResponseSource } from './index.ts';
import { insertRunning } from './invocations/record.ts';
import { createRedactor } from './redact.ts';

const REPLY = { kind: 'final_patch', patch: { narration: 'Bob waits.' } };
const MESSAGES = { messages: [{ role: 'user', content: 'Act.' }] };

const rows = async (store: Store) => ({
  invocations: await store.all('SELECT * FROM source_invocations ORDER BY source_invocation_id'),
  llmCalls: await store.all('SELECT * FROM llm_calls ORDER BY llm_call_id'),
});

/** A running row of attempt `a1`, its seq allocated by the insert (which needs the attempt's unique index). */
const runningInAttempt = (store: Store, sourceHash: string, parent: string | null) =>
  store.transaction((tx) =>
    insertRunning(
      tx,
      {
        source_invocation_id: uuidv7(),
        source_hash: sourceHash,
        interface_name: 'llm_chat_completions',
        invocation_kind: 'llm_generation',
        links: {
          attempt_id: 'a1',
          world_slug: 'park',
          attempted_turn: 1,
          parent_source_invocation_id: parent,
        },
        input_schema_hash: null,
        output_schema_hash: null,
        llm_call_id: null,
        request_json: MESSAGES,
        metadata: {},
        started_at: Date.now(),
        owner_process_id: 'p1',
      },
      createRedactor([]),
    ),
  );

describeEachStore('migration 344: the trace status checks as equalities', (factory) => {
  test('carries every invocation and LLM call row unchanged, and the tables check, index and reference as before', async () => {
    const { store, dispose } = await factory.open(migrations.filter((m) => m.id < 344 || m.id > 345));
    const model = await startScriptedModel({
      script: { rules: [], default: { json: REPLY, chunk_chars: 5 } },
    });
    try {
      const source = await putResponseSource(store, {
        version: 1,
        interface: { name: 'llm_chat_completions', model: 'scripted-1', schema_delivery: 'response_format' },
      });
      // Rows as the code of the time wrote them (the trace in a table of its own).
      const [first] = await writeLegacyCalls(store, source.hash, 'p0');
      const parent = first!.source_invocation_id;
      const before = await rows(store);

      const report = await migrate(
        store,
        migrations.filter((m) => m.id !== 345),
      );
      assert.deepEqual(
        report.applied.map((m) => m.id),
        [344],
      );
      assert.deepEqual(await rows(store), before);
      assert.equal(
        (await store.tableNames()).some((t) => t.includes('before_344')),
        false,
        'no table of the rebuild is left behind',
      );

      // The attempt's unique index came back: the next seq is allocated after the carried rows'.
      assert.equal(await runningInAttempt(store, source.hash, parent), 5);
      // The status check still refuses an unknown status, on both tables.
      await assert.rejects(store.run("UPDATE source_invocations SET status = 'paused'"));
      await assert.rejects(store.run("UPDATE llm_calls SET status = 'paused'"));
      // The foreign keys still hold: a call of an unknown invocation, a child of an unknown parent.
      await assert.rejects(
        store.run(
          `INSERT INTO llm_calls (llm_call_id, source_invocation_id, endpoint_name, base_url, model, schema_delivery,
             request_json, status, started_at) VALUES (?, ?, 'e', 'u', 'm', 'd', '{}', 'running', 1)`,
          [uuidv7(), uuidv7()],
        ),
      );
      await assert.rejects(runningInAttempt(store, source.hash, uuidv7()));
      // And, with the later migrations, calls go on being traced.
      await migrate(store, migrations);
      const schema = await putJsonSchema(store, { type: 'object', required: ['kind'] });
      const env = { NOEMA_LLM_BASE_URL: model.url };
      const after = await invokeSource(store, {
        source,
        request: MESSAGES,
        kind: 'manual',
        resultSchema: schema,
        env,
      });
      assert.equal(after.ok, true, after.error?.message);
      assert.equal((await getSourceInvocation(store, after.source_invocation_id)).status, 'succeeded');
    } finally {
      await model.close();
      await dispose();
    }
  });
});
