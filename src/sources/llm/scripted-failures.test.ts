/**
 * The scripted model answering as providers do when things go wrong — a 429 with Retry-After, a
 * refusal, a reply cut off at the token limit — and the typed failure class each becomes, recorded.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type ScriptReply, startScriptedModel } from '../../dev/scripted-model/index.ts';
import { describeEachStore } from '../../testing/each-store.ts';
import { getSourceInvocation, invokeSource, putJsonSchema, putResponseSource } from '../index.ts';

describeEachStore('scripted provider failures', (factory) => {
  test('429 with Retry-After is rate_limited (retry_after_ms); a refusal is refusal; a cut-off reply is truncated', async () => {
    const { store, dispose } = await factory.open();
    const cases: Array<[ScriptReply, string, RegExp]> = [
      [
        {
          error: { status: 429, headers: { 'retry-after': '2' }, body: { error: { message: 'slow down' } } },
        },
        'rate_limited',
        /HTTP 429 \(rate_limited\): slow down \(retry after 2000 ms\)/,
      ],
      [{ refusal: 'I cannot help with that.' }, 'refusal', /the model refused: I cannot help with that\./],
      [{ text: '{"ok": tr', finish_reason: 'length' }, 'truncated', /was cut off at 8 tokens/],
    ];
    const source = await putResponseSource(store, {
      version: 1,
      interface: {
        name: 'llm_chat_completions',
        model: 'scripted',
        schema_delivery: 'response_format',
        max_tokens: 8,
      },
    });
    const resultSchema = await putJsonSchema(store, { type: 'object' });
    try {
      for (const [reply, cls, message] of cases) {
        const model = await startScriptedModel({ script: { rules: [{ reply }] } });
        try {
          const out = await invokeSource(store, {
            source,
            request: { messages: [{ role: 'user', content: 'hi' }] },
            kind: 'manual',
            resultSchema,
            env: { NOEMA_LLM_BASE_URL: model.url },
          });
          assert.equal(out.failure_class, cls, out.error?.message);
          assert.match(out.error!.message, message);
          if (cls === 'rate_limited') assert.equal(out.error!.details.retry_after_ms, 2000);
          const row = await getSourceInvocation(store, out.source_invocation_id);
          assert.equal(row.failure_class, cls);
          // What the provider asked is recorded with the invocation, for each attempt.
          if (cls === 'rate_limited') assert.match(String(row.failure_message), /retry after 2000 ms/);
        } finally {
          await model.close();
        }
      }
    } finally {
      await dispose();
    }
  });
});
