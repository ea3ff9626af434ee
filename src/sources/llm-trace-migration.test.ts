/**
 * Migration 345 (the LLM trace on its invocation row) carries every call as it was: `llm_calls`
 * reads the same rows, and every reader returns the same records; recovery and new calls go on.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { migrations } from '../app/migrations.ts';
import { startScriptedModel } from '../dev/scripted-model/index.ts';
import { migrate } from '../store/index.ts';
import type { Store } from '../store/store.ts';
import { describeEachStore } from '../testing/each-store.ts';
import { writeLegacyCalls } from '../testing/legacy-trace-rows.ts';
import {
  getLlmCall,
  getSourceInvocation,
  invokeSource,
  listSourceInvocations,
  putJsonSchema,
  putResponseSource,
  recoverInterruptedInvocations,
  setModelOutputKind,
} from './index.ts';

const REPLY = { kind: 'final_patch', patch: { narration: 'Bob waits.' } };

const llmCalls = (store: Store) => store.all('SELECT * FROM llm_calls ORDER BY llm_call_id');

describeEachStore('migration 345: the LLM trace on its invocation row', (factory) => {
  test('llm_calls reads the same rows and every reader the same records; recovery and new calls go on', async () => {
    const { store, dispose } = await factory.open(migrations.filter((m) => m.id !== 345));
    const model = await startScriptedModel({
      script: { rules: [], default: { json: REPLY, chunk_chars: 5 } },
    });
    try {
      const source = await putResponseSource(store, {
        version: 1,
        interface: { name: 'llm_chat_completions', model: 'scripted-1', schema_delivery: 'response_format' },
      });
      const calls = await writeLegacyCalls(store, source.hash, 'a-dead-process');
      const table = await llmCalls(store);
      assert.equal(table.length, 4);
      const read = async () => ({
        invocations: await Promise.all(calls.map((c) => getSourceInvocation(store, c.source_invocation_id))),
        page: await listSourceInvocations(store, { attempt_id: 'a1' }),
      });
      const before = await read();

      const report = await migrate(store, migrations);
      assert.deepEqual(
        report.applied.map((m) => m.id),
        [345],
      );
      assert.equal((await store.tableNames()).includes('llm_calls'), false, 'llm_calls is a view now');
      assert.deepEqual(await llmCalls(store), table);
      assert.deepEqual(await read(), before);
      // The LLM calls read as sent and seen: the one stored once as the one with every value explicit.
      const [once, explicit, failed, running] = await Promise.all(
        calls.map((c) => getLlmCall(store, c.llm_call_id)),
      );
      const reply = JSON.stringify(REPLY);
      for (const c of [once!, explicit!]) {
        assert.equal(c.status, 'succeeded');
        assert.equal(c.raw_text, reply);
        assert.equal(c.normalized_text, reply);
        assert.deepEqual(c.response_headers, { 'content-type': 'text/event-stream' });
        assert.deepEqual(c.request_messages, [{ role: 'user', content: 'Act.' }]);
        assert.deepEqual(c.artifacts, [{ seq: 1, kind: 'parsed_output', content: REPLY }]);
        assert.equal(c.chunks_truncated, false);
        assert.equal((c.chunks as unknown[]).length, 2);
      }
      const same = ({
        llm_call_id,
        source_invocation_id,
        started_at,
        first_chunk_at,
        ended_at,
        ...rest
      }: Record<string, unknown>) => rest;
      assert.deepEqual(same(once!), same(explicit!));
      assert.equal(failed!.failure_class, 'http_status');
      assert.equal(failed!.raw_text, '');
      assert.deepEqual(failed!.artifacts, [
        { seq: 1, kind: 'upstream_error', content: { http_status: 503, body: 'busy' } },
      ]);
      assert.equal(running!.status, 'running');
      assert.equal((running!.chunks as unknown[]).length, 1, 'the batch persisted while it streamed');

      // Annotating and recovering reach the trace on the same row.
      await setModelOutputKind(store, calls[2]!.source_invocation_id, 'invalid');
      const annotated = await getLlmCall(store, calls[2]!.llm_call_id);
      assert.equal(annotated.model_output_kind, 'invalid');
      const recovered = await recoverInterruptedInvocations(store);
      assert.equal(recovered.interrupted, 1);
      const interrupted = await getLlmCall(store, calls[3]!.llm_call_id);
      assert.equal(interrupted.status, 'interrupted');
      assert.equal(interrupted.failure_class, 'interrupted');
      assert.deepEqual(interrupted.chunks, running!.chunks, 'the chunks persisted while it streamed');

      // A new call: its trace is on its invocation row, under its invocation's id.
      const schema = await putJsonSchema(store, { type: 'object', required: ['kind'] });
      const env = { NOEMA_LLM_BASE_URL: model.url };
      const out = await invokeSource(store, {
        source,
        request: { messages: [{ role: 'user', content: 'Act.' }] },
        kind: 'manual',
        resultSchema: schema,
        env,
      });
      assert.equal(out.ok, true, out.error?.message);
      assert.equal(out.llm_call_id, out.source_invocation_id);
      const call = await getLlmCall(store, out.llm_call_id!);
      assert.equal(call.status, 'succeeded');
      assert.deepEqual(call.artifacts, [{ seq: 1, kind: 'parsed_output', content: REPLY }]);
      assert.equal((await llmCalls(store)).length, 5);
      const invocation = await getSourceInvocation(store, out.source_invocation_id);
      assert.deepEqual(
        Object.keys(invocation),
        Object.keys(before.invocations[0]!),
        'the record keeps its fields',
      );
    } finally {
      await model.close();
      await dispose();
    }
  });
});
