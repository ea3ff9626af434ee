/**
 * Provider profiles against the provider fixture (a real HTTP server on 127.0.0.1 per provider that
 * refuses what that provider refuses): what each profile sends, and the typed failure class of each
 * way a provider answers badly, recorded on the invocation.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  type ProviderFixture,
  type Scenario,
  startProviderFixture,
} from '../../dev/provider-fixture/index.ts';
import type { Store } from '../../store/store.ts';
import { describeEachStore } from '../../testing/each-store.ts';
import { correctiveFor, RETRY_BY_CLASS } from '../failure.ts';
import { getLlmCall, getSourceInvocation, invokeSource, putJsonSchema, putResponseSource } from '../index.ts';
import type { ProviderName } from './providers.ts';

type Artifact = { kind: string; content: unknown };
const artifactsOf = (trace: Record<string, unknown>) => trace.artifacts as Artifact[];

/** A schema inside OpenAI's strict subset. */
const STRICT = {
  type: 'object',
  additionalProperties: false,
  required: ['ok'],
  properties: { ok: { type: 'boolean' } },
};

async function call(
  store: Store,
  fixture: ProviderFixture,
  o: {
    model?: string;
    schema?: Record<string, unknown>;
    iface?: Record<string, unknown>;
    env?: Record<string, string>;
    request?: Record<string, unknown>;
  } = {},
) {
  const source = await putResponseSource(store, {
    version: 1,
    interface: {
      name: 'llm_chat_completions',
      model: o.model ?? 'gpt-4o',
      schema_delivery: 'response_format',
      ...o.iface,
    },
  });
  const resultSchema = await putJsonSchema(store, o.schema ?? STRICT);
  return invokeSource(store, {
    source,
    request: { messages: [{ role: 'user', content: 'say ok' }], ...o.request },
    kind: 'manual',
    resultSchema,
    env: {
      NOEMA_LLM_BASE_URL: fixture.url,
      NOEMA_LLM_API_KEY: 'sk-fixture-key-0123456789',
      NOEMA_LLM_PROVIDER: fixture.profile,
      ...o.env,
    },
  });
}

describeEachStore('provider profiles', (factory) => {
  test('each profile sends its token-limit parameter, schema delivery and stream_options, and the call succeeds', async () => {
    const { store, dispose } = await factory.open();
    const expect: Record<
      Exclude<ProviderName, 'generic'>,
      { limit: string; strict: boolean | null; streamOptions: boolean }
    > = {
      openai: { limit: 'max_completion_tokens', strict: true, streamOptions: true },
      'azure-openai': { limit: 'max_completion_tokens', strict: true, streamOptions: true },
      anthropic: { limit: 'max_tokens', strict: null, streamOptions: true },
      gemini: { limit: 'max_tokens', strict: true, streamOptions: true },
      openrouter: { limit: 'max_tokens', strict: true, streamOptions: true },
      ollama: { limit: 'max_tokens', strict: false, streamOptions: true },
      vllm: { limit: 'max_tokens', strict: false, streamOptions: true },
      llamacpp: { limit: 'max_tokens', strict: false, streamOptions: true },
      lmstudio: { limit: 'max_tokens', strict: false, streamOptions: false },
    };
    try {
      for (const [profile, want] of Object.entries(expect)) {
        const fixture = await startProviderFixture({ profile: profile as ProviderName });
        try {
          const out = await call(store, fixture, { iface: { max_tokens: 300, temperature: 0.2 } });
          assert.equal(out.ok, true, `${profile}: ${out.error?.message}`);
          assert.deepEqual(out.output, { ok: true }, profile);
          const body = fixture.requests[0]!.body;
          assert.equal(body[want.limit], 300, `${profile} sends ${want.limit}`);
          const other = want.limit === 'max_tokens' ? 'max_completion_tokens' : 'max_tokens';
          assert.equal(body[other], undefined, `${profile} does not send ${other}`);
          const format = body.response_format as { json_schema?: { strict?: boolean } } | undefined;
          if (want.strict === null) {
            assert.equal(format, undefined, `${profile}: no response_format`);
            const msgs = body.messages as Array<{ role: string; content: string }>;
            assert.match(msgs.at(-1)!.content, /JSON Schema/, `${profile}: the schema is in the prompt`);
          } else {
            assert.equal(format?.json_schema?.strict, want.strict ? true : undefined, `${profile} strict`);
          }
          assert.equal(body.stream_options !== undefined, want.streamOptions, `${profile} stream_options`);
          const row = await getSourceInvocation(store, out.source_invocation_id);
          assert.equal((row.metadata as { provider?: string }).provider, profile);
        } finally {
          await fixture.close();
        }
      }
    } finally {
      await dispose();
    }
  });

  test('an OpenAI reasoning model gets no temperature and max_completion_tokens; the generic profile sends max_tokens, which that model refuses', async () => {
    const { store, dispose } = await factory.open();
    const fixture = await startProviderFixture({ profile: 'openai' });
    try {
      const ok = await call(store, fixture, {
        model: 'o4-mini',
        iface: { max_tokens: 500, temperature: 0.3 },
      });
      assert.equal(ok.ok, true, ok.error?.message);
      const sent = fixture.requests[0]!.body;
      assert.equal(sent.temperature, undefined);
      assert.equal(sent.max_completion_tokens, 500);
      // The same source on the generic profile: OpenAI's 400, recorded as such.
      // A free-form root (a flowchart LLM node without output_schema) goes wrapped as {value: "<json>"}.
      const wrapped = await startProviderFixture({
        profile: 'openai',
        reply: '{"value":"{\\"mood\\":\\"calm\\"}"}',
      });
      try {
        const free = await call(store, wrapped, { schema: { type: 'object' } });
        assert.equal(free.ok, true, free.error?.message);
        assert.deepEqual(free.output, { mood: 'calm' });
        assert.equal(wrapped.requests[0]!.refused, null);
      } finally {
        await wrapped.close();
      }

      const refused = await call(store, fixture, {
        model: 'o4-mini',
        iface: { max_tokens: 500 },
        env: { NOEMA_LLM_PROVIDER: 'generic' },
      });
      assert.equal(refused.ok, false);
      assert.equal(refused.failure_class, 'http_status');
      assert.match(refused.error!.message, /max_completion_tokens/);
      // gpt-4o accepts a temperature: it is sent.
      await call(store, fixture, { model: 'gpt-4o', iface: { temperature: 0.3 } });
      assert.equal(fixture.requests.at(-1)!.body.temperature, 0.3);
    } finally {
      await fixture.close();
      await dispose();
    }
  });

  test('a schema outside the subset is converted for a strict provider and the reply validated against the original; one with no strict form is refused before a byte is sent', async () => {
    const { store, dispose } = await factory.open();
    const fixture = await startProviderFixture({
      profile: 'openai',
      // The model answers the converted schema: the optional `note` as null.
      reply: '{"ok":true,"note":null}',
    });
    try {
      const open = {
        type: 'object',
        required: ['ok'],
        properties: { ok: { type: 'boolean' }, note: { type: 'string', maxLength: 20 } },
      };
      const out = await call(store, fixture, { schema: open });
      assert.equal(out.ok, true, out.error?.message);
      assert.deepEqual(out.output, { ok: true }, 'the null of the optional property is read back away');
      const sent = (
        fixture.requests[0]!.body.response_format as { json_schema: { schema: Record<string, unknown> } }
      ).json_schema.schema;
      assert.equal(sent.additionalProperties, false);
      assert.deepEqual([...(sent.required as string[])].sort(), ['note', 'ok']);
      assert.deepEqual((sent.properties as Record<string, { type: unknown; description?: string }>).note, {
        type: ['string', 'null'],
        description: 'maxLength 20',
      });
      assert.equal(fixture.requests[0]!.refused, null, 'OpenAI takes the converted schema');
      // The trace keeps the schema as sent, not the stored original.
      const trace = await getLlmCall(store, out.source_invocation_id);
      const stored = (trace.request_json as { response_format: { json_schema: { schema: unknown } } })
        .response_format.json_schema.schema;
      assert.deepEqual(stored, sent);

      const refused = await call(store, fixture, {
        schema: { type: 'object', properties: { ok: { allOf: [{ type: 'boolean' }] } } },
      });
      assert.equal(refused.failure_class, 'response_format_rejected');
      assert.match(refused.error!.message, /cannot be sent to openai: \/properties\/ok\/allOf/);
      assert.equal(fixture.requests.length, 1, 'nothing was sent');
      const row = await getSourceInvocation(store, refused.source_invocation_id);
      assert.equal(row.status, 'failed');
    } finally {
      await fixture.close();
      await dispose();
    }
  });

  test('azure-openai sends the key as api-key; anthropic caps the temperature at 1; NOEMA_LLM_MAX_TOKENS is the default limit', async () => {
    const { store, dispose } = await factory.open();
    const azure = await startProviderFixture({ profile: 'azure-openai' });
    const anthropic = await startProviderFixture({ profile: 'anthropic' });
    try {
      const a = await call(store, azure, { env: { NOEMA_LLM_MAX_TOKENS: '777' } });
      assert.equal(a.ok, true, a.error?.message);
      assert.equal(azure.requests[0]!.headers['api-key'], 'sk-fixture-key-0123456789');
      assert.equal(azure.requests[0]!.headers.authorization, undefined);
      assert.equal(azure.requests[0]!.body.max_completion_tokens, 777);
      const b = await call(store, anthropic, { model: 'claude-sonnet-4-5', iface: { temperature: 1.5 } });
      assert.equal(b.ok, true, b.error?.message);
      assert.equal(anthropic.requests[0]!.body.temperature, 1);
      assert.equal(anthropic.requests[0]!.body.max_tokens, undefined, 'no limit set anywhere: none sent');
    } finally {
      await azure.close();
      await anthropic.close();
      await dispose();
    }
  });

  test('a bad provider name or token limit fails the call as not_configured, naming the setting, before a byte is sent', async () => {
    const { store, dispose } = await factory.open();
    const fixture = await startProviderFixture({ profile: 'openai' });
    try {
      const bad = await call(store, fixture, { env: { NOEMA_LLM_PROVIDER: 'openia' } });
      assert.equal(bad.failure_class, 'not_configured');
      assert.match(bad.error!.message, /NOEMA_LLM_PROVIDER is invalid: "openia"/);
      const limit = await call(store, fixture, { env: { NOEMA_LLM_MAX_TOKENS: 'lots' } });
      assert.equal(limit.failure_class, 'not_configured');
      assert.match(limit.error!.message, /NOEMA_LLM_MAX_TOKENS/);
      assert.equal(fixture.requests.length, 0);
    } finally {
      await fixture.close();
      await dispose();
    }
  });

  test('reasoning text is read from the profile\u2019s field and recorded', async () => {
    const { store, dispose } = await factory.open();
    try {
      for (const profile of ['ollama', 'llamacpp', 'openrouter'] as const) {
        const fixture = await startProviderFixture({ profile });
        try {
          const out = await call(store, fixture);
          assert.equal(out.ok, true, out.error?.message);
          const trace = await getLlmCall(store, out.llm_call_id!);
          const reasoning = artifactsOf(trace).find((a) => a.kind === 'reasoning');
          assert.deepEqual(reasoning?.content, { text: 'Thinking about the reply.' }, profile);
        } finally {
          await fixture.close();
        }
      }
    } finally {
      await dispose();
    }
  });

  test('each way a provider answers badly is a typed failure class on the invocation', async () => {
    const { store, dispose } = await factory.open();
    const cases: Array<[ProviderName, Scenario, string]> = [
      ['openai', 'rate_limited', 'rate_limited'],
      ['gemini', 'rate_limited', 'rate_limited'],
      ['anthropic', 'rate_limited', 'rate_limited'],
      ['openai', 'auth', 'auth'],
      ['gemini', 'auth', 'auth'],
      ['openai', 'model_not_found', 'model_not_found'],
      ['ollama', 'model_not_found', 'model_not_found'],
      ['openai', 'context_length', 'context_length_exceeded'],
      ['llamacpp', 'context_length', 'context_length_exceeded'],
      ['vllm', 'context_length', 'context_length_exceeded'],
      ['anthropic', 'context_length', 'context_length_exceeded'],
      ['openai', 'refusal', 'refusal'],
      ['openai', 'length', 'truncated'],
      ['ollama', 'length', 'truncated'],
      ['openai', 'content_filter', 'content_filter'],
      ['openai', 'server_error', 'http_status'],
      ['llamacpp', 'unavailable', 'http_status'],
      ['openrouter', 'mid_stream_error', 'upstream_error'],
    ];
    try {
      for (const [profile, scenario, want] of cases) {
        const fixture = await startProviderFixture({
          profile,
          reply: '{"ok":true,"pad":"xxxxxxxxxxxxxxxx"}',
        });
        try {
          fixture.next(scenario);
          const out = await call(store, fixture, { iface: { max_tokens: 12 } });
          assert.equal(out.failure_class, want, `${profile} ${scenario}: ${out.error?.message}`);
          const row = await getSourceInvocation(store, out.source_invocation_id);
          assert.equal(row.failure_class, want, `${profile} ${scenario}: recorded`);
          if (want === 'truncated') assert.match(out.error!.message, /was cut off at 12 tokens/);
          if (want === 'refusal') {
            assert.match(out.error!.message, /can't help/);
            const trace = await getLlmCall(store, out.llm_call_id!);
            assert.ok(artifactsOf(trace).some((a) => a.kind === 'refusal'));
          }
          if (want === 'rate_limited' && profile !== 'gemini') {
            assert.equal(out.error!.details.retry_after_ms, 1000);
            assert.equal(out.error!.retryable, true);
          }
          assert.equal(out.error!.retryable, RETRY_BY_CLASS[want as keyof typeof RETRY_BY_CLASS] === 'same');
        } finally {
          await fixture.close();
        }
      }
    } finally {
      await dispose();
    }
  });
});

test('a truncated reply\u2019s corrective says it was cut off, not that it was not JSON', () => {
  const c = correctiveFor({
    failure_class: 'truncated',
    message: "the model's reply was cut off at 12 tokens (finish_reason length) before its JSON ended",
  });
  assert.match(c!, /^Your previous reply was cut off at 12 tokens/);
  assert.equal(correctiveFor({ failure_class: 'auth', message: 'x' }), null);
});
