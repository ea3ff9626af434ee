/** The LLM source against the scripted model: streaming, response_format, failures, the rich trace. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type ModelScript, startScriptedModel } from '../../dev/scripted-model/index.ts';
import type { Store } from '../../store/store.ts';
import { describeEachStore } from '../../testing/each-store.ts';
import { MAX_RESPONSE_BYTES } from '../http-json/read-body.ts';
import { getLlmCall, getSourceInvocation, invokeSource, putJsonSchema, putResponseSource } from '../index.ts';

const RESULT_SCHEMA = {
  type: 'object',
  required: ['kind'],
  properties: { kind: { enum: ['tool_call', 'final_patch'] }, patch: { type: 'object' } },
};

const MESSAGES = { messages: [{ role: 'user', content: 'Bob stands by the vending machine.' }] };

async function setup(
  store: Store,
  script: ModelScript,
  delivery: 'response_format' | 'prompt_only' = 'response_format',
) {
  const model = await startScriptedModel({ script });
  const source = await putResponseSource(store, {
    version: 1,
    label: 'chat_router',
    interface: { name: 'llm_chat_completions', model: '@chat', schema_delivery: delivery },
  });
  const schema = await putJsonSchema(store, RESULT_SCHEMA);
  const env = {
    NOEMA_LLM_BASE_URL: model.url,
    NOEMA_LLM_API_KEY: 'sk-test-secret-abcdef123456',
    NOEMA_LLM_MODEL: 'scripted-1',
  };
  return { model, source, schema, env };
}

describeEachStore('llm_chat_completions source', (factory) => {
  test('a configured secret holding a quote or backslash is stored nowhere: not raw, not JSON-escaped', async () => {
    const { store, dispose } = await factory.open();
    // JSON-escaped in the request body and the reply's text (`pw\"Q7\\Z9-tok`), twice in the
    // streamed events that carry that text (in one event here: a secret split across events is not
    // found whole in any of them).
    const secret = 'pw"Q7\\Z9-tok';
    const { model, source, schema, env } = await setup(store, {
      rules: [
        { reply: { json: { kind: 'final_patch', patch: { note: `saw ${secret}` } }, chunk_chars: 200 } },
      ],
    });
    try {
      const out = await invokeSource(store, {
        source,
        request: { messages: [{ role: 'user', content: `the key is ${secret}` }] },
        kind: 'llm_generation',
        resultSchema: schema,
        env: { ...env, VENDOR_TOKEN: secret },
      });
      assert.equal(out.ok, true, out.error?.message);
      assert.equal(
        JSON.stringify(out.output).includes('Q7'),
        false,
        'the output handed back kept the secret',
      );
      const rows = await store.all('SELECT * FROM source_invocations');
      assert.equal(rows.length, 1);
      assert.equal(JSON.stringify(rows).includes('Q7'), false, 'the stored row kept the secret');
      const call = await getLlmCall(store, out.llm_call_id!);
      assert.match(JSON.stringify(call.chunks), /REDACTED/);
    } finally {
      await model.close();
      await dispose();
    }
  });

  test('a streamed JSON reply succeeds and both rows finish together with chunks, usage and artifacts', async () => {
    const { store, dispose } = await factory.open();
    const { model, source, schema, env } = await setup(store, {
      rules: [
        { reply: { json: { kind: 'final_patch', patch: { narration: 'Bob waits.' } }, chunk_chars: 5 } },
      ],
    });
    try {
      const out = await invokeSource(store, {
        source,
        request: MESSAGES,
        kind: 'llm_generation',
        resultSchema: schema,
        env,
        links: { attempt_id: 'a1', world_slug: 'park', attempted_turn: 2, workflow_subject_entity_id: 'bob' },
      });
      assert.equal(out.ok, true, out.error?.message);
      assert.deepEqual(out.output, { kind: 'final_patch', patch: { narration: 'Bob waits.' } });
      assert.equal(out.invocation_seq, 1);
      const inv = await getSourceInvocation(store, out.source_invocation_id);
      assert.equal(inv.status, 'succeeded');
      assert.equal(inv.invocation_kind, 'llm_generation');
      assert.equal(inv.llm_call_id, out.llm_call_id);
      assert.equal(inv.validation_status, 'valid');
      assert.equal(inv.output_schema_hash, schema.hash);
      const call = await getLlmCall(store, out.llm_call_id!);
      assert.equal(call.status, 'succeeded');
      assert.equal(call.source_invocation_id, out.source_invocation_id);
      assert.equal(call.model, 'scripted-1');
      assert.deepEqual(call.request_messages, MESSAGES.messages);
      const sent = model.requests[0]!.body;
      assert.deepEqual(
        (sent.response_format as { json_schema: { schema: unknown } }).json_schema.schema,
        RESULT_SCHEMA,
      );
      assert.equal(sent.stream, true);
      // The trace reads back the body as it was sent, schema and messages included, though the row
      // stores each once: the messages in the invocation's request, the schema in json_schemas.
      assert.deepEqual(call.request_json, sent);
      const stored = await store.get<{ body: string }>(
        'SELECT llm_request_json AS body FROM source_invocations WHERE source_invocation_id = ?',
        [out.source_invocation_id],
      );
      const body = JSON.parse(stored!.body) as {
        messages: unknown;
        response_format: { json_schema: unknown };
      };
      assert.equal(body.messages, null);
      assert.deepEqual(body.response_format.json_schema, { name: 'noema_result', schema: null });
      assert.equal(model.requests[0]!.headers['x-noema-turn'], '2');
      const chunks = call.chunks as Array<{ data: string; offset_ms: number }>;
      assert.ok(chunks.length > 5, 'every streamed event is kept');
      assert.equal(chunks.at(-1)!.data, '[DONE]');
      // Each chunk reads back as the event that arrived: their deltas make the reply.
      const deltas = chunks
        .slice(0, -1)
        .map(
          (c) =>
            (JSON.parse(c.data) as { choices: Array<{ delta?: { content?: string } }> }).choices[0]?.delta,
        )
        .map((d) => d?.content ?? '');
      assert.equal(
        deltas.join(''),
        JSON.stringify({ kind: 'final_patch', patch: { narration: 'Bob waits.' } }),
      );
      // Stored as differences between consecutive events: far less than the events whole.
      const kept = await store.get<{ chunks: string }>(
        'SELECT llm_chunks_json AS chunks FROM source_invocations WHERE source_invocation_id = ?',
        [out.source_invocation_id],
      );
      const whole = JSON.stringify(chunks.map((c) => [c.offset_ms, c.data]));
      assert.ok(kept!.chunks.length < whole.length / 2, `${kept!.chunks.length} of ${whole.length}`);
      assert.equal(
        call.raw_text,
        JSON.stringify({ kind: 'final_patch', patch: { narration: 'Bob waits.' } }),
      );
      assert.equal(typeof call.total_tokens, 'number');
      const artifacts = call.artifacts as Array<{ kind: string; content: unknown }>;
      assert.deepEqual(
        artifacts.map((a) => a.kind),
        ['parsed_output'],
      );
      const second = await invokeSource(store, {
        source,
        request: MESSAGES,
        kind: 'llm_generation',
        env,
        links: { attempt_id: 'a1' },
      });
      assert.equal(second.invocation_seq, 2, 'invocation_seq counts within the attempt');
    } finally {
      await model.close();
      await dispose();
    }
  });

  test('onChunk observes the assistant text piece by piece while it streams', async () => {
    const { store, dispose } = await factory.open();
    const reply = { kind: 'final_patch', patch: { narration: 'Bob waits by the machine.' } };
    const { model, source, schema, env } = await setup(store, {
      rules: [{ reply: { json: reply, chunk_chars: 7, chunk_delay_ms: 20 } }],
    });
    try {
      const pieces: Array<{ text: string; at: number }> = [];
      const out = await invokeSource(store, {
        source,
        request: MESSAGES,
        kind: 'llm_generation',
        resultSchema: schema,
        env,
        onChunk: (text) => pieces.push({ text, at: Date.now() }),
      });
      const ended = Date.now();
      assert.equal(out.ok, true, out.error?.message);
      const call = await getLlmCall(store, out.llm_call_id!);
      assert.equal(pieces.map((p) => p.text).join(''), call.raw_text);
      assert.ok(pieces.length > 3, `several pieces (got ${pieces.length})`);
      assert.ok(pieces[0]!.at < ended - 60, 'the first piece arrived while the model was still streaming');
    } finally {
      await model.close();
      await dispose();
    }
  });

  test('a rejected response_format fails loudly and is never retried prompt-only', async () => {
    const { store, dispose } = await factory.open();
    const { model, source, schema, env } = await setup(store, {
      reject_response_format: true,
      rules: [{ reply: { json: { kind: 'final_patch' } } }],
    });
    try {
      const out = await invokeSource(store, {
        source,
        request: MESSAGES,
        kind: 'llm_generation',
        resultSchema: schema,
        env,
      });
      assert.equal(out.ok, false);
      assert.equal(out.failure_class, 'response_format_rejected');
      assert.equal(out.error?.code, 'SOURCE_RESPONSE_FORMAT_REJECTED');
      assert.equal(model.requests.length, 1, 'exactly one request: no silent fallback');
      const inv = await getSourceInvocation(store, out.source_invocation_id);
      assert.equal(inv.status, 'failed');
      assert.equal(inv.http_status, 400);
      const call = await getLlmCall(store, out.llm_call_id!);
      assert.equal(call.status, 'failed');
      assert.equal(call.failure_class, 'response_format_rejected');
      assert.ok((call.artifacts as Array<{ kind: string }>).some((a) => a.kind === 'upstream_error'));
    } finally {
      await model.close();
      await dispose();
    }
  });

  test('prompt_only delivery is used only when the definition says so and sends no response_format', async () => {
    const { store, dispose } = await factory.open();
    const { model, source, schema, env } = await setup(
      store,
      { reject_response_format: true, rules: [{ reply: { text: '```json\n{"kind":"tool_call"}\n```' } }] },
      'prompt_only',
    );
    try {
      const out = await invokeSource(store, {
        source,
        request: MESSAGES,
        kind: 'llm_generation',
        resultSchema: schema,
        env,
      });
      assert.equal(out.ok, true, out.error?.message);
      assert.deepEqual(out.output, { kind: 'tool_call' });
      const body = model.requests[0]!.body as {
        response_format?: unknown;
        messages: Array<{ content: string }>;
      };
      assert.equal(body.response_format, undefined);
      assert.match(body.messages.at(-1)!.content, /JSON Schema/);
      const call = await getLlmCall(store, out.llm_call_id!);
      assert.equal(call.normalized_text, '{"kind":"tool_call"}');
    } finally {
      await model.close();
      await dispose();
    }
  });

  test('non-JSON, schema-invalid and 5xx replies fail with their classes and keep what came back', async () => {
    const { store, dispose } = await factory.open();
    const { model, source, schema, env } = await setup(store, {
      rules: [
        { match: { call: 1 }, reply: { text: 'I think Bob should wait.' } },
        { match: { call: 2 }, reply: { json: { kind: 'dance' } } },
        { match: { call: 3 }, reply: { error: { status: 503, body: { error: { message: 'overloaded' } } } } },
      ],
    });
    try {
      const call = (n: number) =>
        invokeSource(store, {
          source,
          request: MESSAGES,
          kind: 'llm_generation',
          resultSchema: schema,
          env,
          links: { run_id: `r${n}` },
        });
      const nonJson = await call(1);
      assert.equal(nonJson.failure_class, 'non_json');
      const t1 = await getLlmCall(store, nonJson.llm_call_id!);
      assert.equal(t1.raw_text, 'I think Bob should wait.');
      assert.ok((t1.artifacts as Array<{ kind: string }>).some((a) => a.kind === 'parse_error'));

      const invalid = await call(2);
      assert.equal(invalid.failure_class, 'schema_invalid');
      const inv2 = await getSourceInvocation(store, invalid.source_invocation_id);
      assert.equal(inv2.validation_status, 'invalid');
      assert.deepEqual(inv2.response_json, { kind: 'dance' });
      const t2 = await getLlmCall(store, invalid.llm_call_id!);
      assert.deepEqual(
        (t2.artifacts as Array<{ kind: string }>).map((a) => a.kind),
        ['parsed_output', 'validation_error'],
      );

      const down = await call(3);
      assert.equal(down.failure_class, 'http_status');
      const inv3 = await getSourceInvocation(store, down.source_invocation_id);
      assert.equal(inv3.http_status, 503);
      assert.deepEqual(inv3.response_json, { error: { message: 'overloaded' } });
      assert.equal(model.requests.length, 3, 'no hidden retries');
    } finally {
      await model.close();
      await dispose();
    }
  });

  test('a reply streaming past the response size cap fails as protocol and both rows finish', async () => {
    const { store, dispose } = await factory.open();
    const huge = 'x'.repeat(MAX_RESPONSE_BYTES + 1024);
    const { model, source, schema, env } = await setup(store, {
      rules: [{ reply: { text: huge, chunk_chars: 1024 * 1024 } }],
    });
    try {
      const out = await invokeSource(store, {
        source,
        request: MESSAGES,
        kind: 'llm_generation',
        resultSchema: schema,
        env,
      });
      assert.equal(out.ok, false);
      assert.equal(out.failure_class, 'protocol');
      assert.match(out.error?.message ?? '', new RegExp(`exceeds ${MAX_RESPONSE_BYTES} bytes`));
      const inv = await getSourceInvocation(store, out.source_invocation_id);
      assert.equal(inv.status, 'failed');
      assert.equal(inv.failure_class, 'protocol');
      const call = await getLlmCall(store, out.llm_call_id!);
      assert.equal(call.status, 'failed');
      assert.ok((call.raw_text as string).length <= MAX_RESPONSE_BYTES, 'what is kept stays under the cap');
    } finally {
      await model.close();
      await dispose();
    }
  });

  test('a hanging model times out, and a cancelled call is recorded as cancelled', async () => {
    const { store, dispose } = await factory.open();
    const { model, source, env } = await setup(store, {
      rules: [{ reply: { hang: true, hang_after_chunks: 1, json: { kind: 'final_patch' } } }],
    });
    try {
      const timedOut = await invokeSource(store, {
        source,
        request: MESSAGES,
        kind: 'llm_generation',
        env,
        timeoutMs: 150,
      });
      assert.equal(timedOut.failure_class, 'timeout');
      const call = await getLlmCall(store, timedOut.llm_call_id!);
      assert.equal(call.status, 'failed');
      assert.ok((call.chunks as unknown[]).length >= 1, 'chunks streamed before the timeout are kept');
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 100);
      const cancelled = await invokeSource(store, {
        source,
        request: MESSAGES,
        kind: 'llm_generation',
        env,
        signal: controller.signal,
      });
      assert.equal(cancelled.failure_class, 'cancelled');
    } finally {
      await model.close();
      await dispose();
    }
  });

  test('an unset base URL fails as not_configured after recording the invocation', async () => {
    const { store, dispose } = await factory.open();
    try {
      const source = await putResponseSource(store, {
        version: 1,
        interface: { name: 'llm_chat_completions', model: 'gpt-x', schema_delivery: 'response_format' },
      });
      const out = await invokeSource(store, { source, request: MESSAGES, kind: 'llm_generation', env: {} });
      assert.equal(out.failure_class, 'not_configured');
      assert.equal(out.error?.code, 'SOURCE_NOT_CONFIGURED');
      const inv = await getSourceInvocation(store, out.source_invocation_id);
      assert.equal(inv.status, 'failed');
      assert.match(String(inv.failure_message), /NOEMA_LLM_BASE_URL/);
    } finally {
      await dispose();
    }
  });
});
