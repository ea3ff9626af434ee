/**
 * The LLM trace stores the output (the request messages, the response headers) once, on the invocation row, and
 * reads back exactly what was sent and seen; rows written in the older, fully explicit layout
 * read the same.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type ModelScript, startScriptedModel } from '../../dev/scripted-model/index.ts';
import type { Store } from '../../store/store.ts';
import { describeEachStore } from '../../testing/each-store.ts';
import { FaultyStore } from '../../testing/faulty-store.ts';
import { getLlmCall, getSourceInvocation, invokeSource, putJsonSchema, putResponseSource } from '../index.ts';

const RESULT_SCHEMA = { type: 'object', required: ['kind'], properties: { kind: { type: 'string' } } };
const MESSAGES = {
  messages: [
    { role: 'system', content: 'You are Bob.' },
    { role: 'user', content: 'Bob stands by the vending machine.' },
  ],
};

async function setup(store: Store, script: ModelScript, delivery = 'response_format') {
  const model = await startScriptedModel({ script });
  const source = await putResponseSource(store, {
    version: 1,
    interface: { name: 'llm_chat_completions', model: 'scripted-1', schema_delivery: delivery },
  });
  const schema = await putJsonSchema(store, RESULT_SCHEMA);
  const env = { NOEMA_LLM_BASE_URL: model.url };
  const call = (via: Store = store) =>
    invokeSource(via, { source, request: MESSAGES, kind: 'manual', resultSchema: schema, env });
  return { model, call };
}

type Stored = {
  raw_text: string | null;
  normalized_text: string | null;
  normalized_is_raw: number;
  artifacts_json: string;
  request_json: string;
  response_headers: string;
};

const stored = async (store: Store, id: string) =>
  (await store.get<Stored>(
    `SELECT raw_text, normalized_text, normalized_is_raw, artifacts_json, request_json, response_headers
       FROM llm_calls WHERE llm_call_id = ?`,
    [id],
  ))!;

/**
 * Rewrites a call's trace as it was stored before migration 343 (every value explicit, taken
 * from what the reader returned) and checks that it reads back byte for byte the same.
 */
async function assertReadsSameAsExplicitRow(store: Store, id: string): Promise<void> {
  const before = await getLlmCall(store, id);
  await store.run(
    `UPDATE source_invocations SET llm_raw_text = ?, llm_normalized_text = ?, llm_normalized_is_raw = 0,
       llm_artifacts_json = ?, llm_request_json = ?, llm_response_headers = ?
     WHERE llm_call_id = ?`,
    [
      before.raw_text as string | null,
      before.normalized_text as string | null,
      JSON.stringify(before.artifacts),
      JSON.stringify(before.request_json),
      JSON.stringify(before.response_headers),
      id,
    ],
  );
  assert.equal(JSON.stringify(await getLlmCall(store, id)), JSON.stringify(before));
}

describeEachStore('LLM trace: the output stored once', (factory) => {
  test('a reply is stored once and read back as sent and seen, like an explicit (older) row', async () => {
    const { store, dispose } = await factory.open();
    const reply = { kind: 'final_patch', patch: { narration: 'Bob waits.' } };
    const { model, call } = await setup(store, { rules: [{ reply: { json: reply, chunk_chars: 7 } }] });
    try {
      const out = await call();
      assert.equal(out.ok, true, out.error?.message);
      const id = out.llm_call_id!;
      const row = await stored(store, id);
      // Stored once: on the invocation row.
      assert.equal(row.raw_text, null);
      assert.equal(row.normalized_text, null);
      assert.equal(Number(row.normalized_is_raw), 1);
      assert.equal(JSON.parse(row.request_json).messages, null);
      assert.deepEqual(JSON.parse(row.artifacts_json), [
        { seq: 1, kind: 'parsed_output', content_in: 'response_json' },
      ]);
      assert.equal(row.response_headers, 'null', "the headers are the invocation row's");
      const inv = await getSourceInvocation(store, out.source_invocation_id);
      assert.equal(inv.response_text, JSON.stringify(reply));
      assert.equal((inv.response_headers as Record<string, string>)['content-type'], 'text/event-stream');
      // Read back whole.
      const read = await getLlmCall(store, id);
      assert.equal(read.raw_text, JSON.stringify(reply));
      assert.equal(read.normalized_text, JSON.stringify(reply));
      assert.deepEqual(read.artifacts, [{ seq: 1, kind: 'parsed_output', content: reply }]);
      assert.equal(JSON.stringify(read.request_json), JSON.stringify(model.requests[0]!.body));
      assert.deepEqual(read.request_messages, MESSAGES.messages);
      assert.deepEqual(read.response_headers, inv.response_headers);
      assert.equal('normalized_is_raw' in read, false);
      assert.equal('inv_response_json' in read, false);
      assert.equal('inv_response_headers' in read, false);
      await assertReadsSameAsExplicitRow(store, id);
    } finally {
      await model.close();
      await dispose();
    }
  });

  test('what differs is kept: a fenced reply, an error body, a prompt-only instruction', async () => {
    const { store, dispose } = await factory.open();
    const fenced = '```json\n{"kind":"tool_call"}\n```';
    const { model, call } = await setup(
      store,
      {
        rules: [
          { match: { call: 1 }, reply: { text: fenced } },
          {
            match: { call: 2 },
            reply: { error: { status: 503, body: { error: { message: 'overloaded' } } } },
          },
          { match: { call: 3 }, reply: { text: 'not JSON at all' } },
        ],
      },
      'prompt_only',
    );
    try {
      const ok = await call();
      assert.equal(ok.ok, true, ok.error?.message);
      const row = await stored(store, ok.llm_call_id!);
      assert.equal(row.raw_text, null, 'the raw text is the invocation response_text');
      assert.equal(row.normalized_text, '{"kind":"tool_call"}');
      assert.equal(Number(row.normalized_is_raw), 0);
      // The prompt-only instruction makes the wire messages differ from the request's.
      assert.equal(JSON.parse(row.request_json).messages.length, 3);
      const read = await getLlmCall(store, ok.llm_call_id!);
      assert.equal(read.raw_text, fenced);
      assert.equal(read.normalized_text, '{"kind":"tool_call"}');
      assert.deepEqual(read.artifacts, [{ seq: 1, kind: 'parsed_output', content: { kind: 'tool_call' } }]);
      assert.equal(JSON.stringify(read.request_json), JSON.stringify(model.requests[0]!.body));
      await assertReadsSameAsExplicitRow(store, ok.llm_call_id!);

      const failed = await call();
      assert.equal(failed.failure_class, 'http_status');
      const inv = await getSourceInvocation(store, failed.source_invocation_id);
      assert.equal(inv.response_text, '{"error":{"message":"overloaded"}}');
      const read2 = await getLlmCall(store, failed.llm_call_id!);
      assert.equal(read2.raw_text, '', 'no assistant text arrived: not the error body');
      assert.equal(read2.normalized_text, null);
      await assertReadsSameAsExplicitRow(store, failed.llm_call_id!);

      const nonJson = await call();
      assert.equal(nonJson.failure_class, 'non_json');
      const read3 = await getLlmCall(store, nonJson.llm_call_id!);
      assert.equal(read3.raw_text, 'not JSON at all');
      assert.equal(read3.normalized_text, 'not JSON at all');
      assert.deepEqual(
        (read3.artifacts as Array<{ kind: string }>).map((a) => a.kind),
        ['parse_error'],
      );
      await assertReadsSameAsExplicitRow(store, nonJson.llm_call_id!);
    } finally {
      await model.close();
      await dispose();
    }
  });

  test('a finish written again after a store fault records each artifact once', async () => {
    const { store, dispose } = await factory.open();
    const reply = { kind: 'final_patch' };
    const { model, call } = await setup(store, { rules: [{ reply: { json: reply } }] });
    const faulty = new FaultyStore(store);
    try {
      // The second transaction from here is the finish (the first records the running rows).
      faulty.arm({ transaction: 2, at: 'commit' });
      const out = await call(faulty);
      assert.equal(out.ok, true, out.error?.message);
      assert.equal(faulty.injected.length, 1, 'the finish failed once and was written again');
      const read = await getLlmCall(store, out.llm_call_id!);
      assert.deepEqual(read.artifacts, [{ seq: 1, kind: 'parsed_output', content: reply }]);
      assert.equal(read.raw_text, JSON.stringify(reply));
    } finally {
      faulty.disarm();
      await model.close();
      await dispose();
    }
  });
});
