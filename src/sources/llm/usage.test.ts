/**
 * Tokens and cost on every call, against the provider fixture: input, output, cached and reasoning
 * tokens as each provider reports them ("not reported" where it does not), and the cost by the
 * operator's price table (NOEMA_LLM_PRICES), kept with the call.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { startProviderFixture } from '../../dev/provider-fixture/index.ts';
import { describeEachStore } from '../../testing/each-store.ts';
import { testTempDir } from '../../testing/temp-dir.ts';
import { getLlmCall, invokeSource, putJsonSchema, putResponseSource } from '../index.ts';
import type { ProviderName } from './providers.ts';
import { checkLlmSettings } from './settings.ts';

const SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['ok'],
  properties: { ok: { type: 'boolean' } },
};

function pricesFile(content: string): string {
  const path = join(testTempDir('noema-prices-'), 'prices.json');
  writeFileSync(path, content);
  return path;
}

const PRICES = JSON.stringify({
  currency: 'USD',
  models: { 'gpt-4o': { input_per_mtok: 2.5, cached_input_per_mtok: 1.25, output_per_mtok: 10 } },
});

describeEachStore('LLM call tokens and cost', (factory) => {
  test('tokens as each provider reports them, not reported where it does not; the cost by the price table', async () => {
    const { store, dispose } = await factory.open();
    const prices = pricesFile(PRICES);
    const source = await putResponseSource(store, {
      version: 1,
      interface: { name: 'llm_chat_completions', model: 'gpt-4o', schema_delivery: 'response_format' },
    });
    const resultSchema = await putJsonSchema(store, SCHEMA);
    const expected: Array<[ProviderName, Record<string, unknown>, Record<string, unknown> | null]> = [
      [
        'openai',
        { input: 19, output: 10, cached: 0, reasoning: 0, not_reported: [] },
        { model: 'gpt-4o', amount: 0.0001475, currency: 'USD' },
      ],
      [
        'ollama',
        { input: 19, output: 10, cached: null, reasoning: null, not_reported: ['cached', 'reasoning'] },
        { model: 'gpt-4o', amount: 0.0001475, currency: 'USD' },
      ],
      [
        'openrouter',
        { input: 19, output: 10, cached: 0, reasoning: 4, not_reported: [], provider_cost: 0.000095 },
        { model: 'gpt-4o', amount: 0.0001475, currency: 'USD' },
      ],
    ];
    try {
      for (const [profile, tokens, cost] of expected) {
        const fixture = await startProviderFixture({ profile });
        try {
          const out = await invokeSource(store, {
            source,
            request: { messages: [{ role: 'user', content: 'ok?' }] },
            kind: 'manual',
            resultSchema,
            env: {
              NOEMA_LLM_BASE_URL: fixture.url,
              NOEMA_LLM_API_KEY: 'sk-fixture-0123456789',
              NOEMA_LLM_PROVIDER: profile,
              NOEMA_LLM_PRICES: prices,
            },
          });
          assert.equal(out.ok, true, out.error?.message);
          const call = await getLlmCall(store, out.llm_call_id!);
          assert.deepEqual(call.tokens, tokens, profile);
          const artifacts = call.artifacts as Array<{ kind: string; content: unknown }>;
          assert.deepEqual(artifacts.find((a) => a.kind === 'cost')?.content, cost, profile);
        } finally {
          await fixture.close();
        }
      }
      // A model the table does not price: the cost is unknown, and says why.
      const fixture = await startProviderFixture({ profile: 'openai' });
      try {
        const other = await putResponseSource(store, {
          version: 1,
          interface: { name: 'llm_chat_completions', model: 'gpt-4.1', schema_delivery: 'response_format' },
        });
        const out = await invokeSource(store, {
          source: other,
          request: { messages: [{ role: 'user', content: 'ok?' }] },
          kind: 'manual',
          resultSchema,
          env: {
            NOEMA_LLM_BASE_URL: fixture.url,
            NOEMA_LLM_API_KEY: 'sk-fixture-0123456789',
            NOEMA_LLM_PROVIDER: 'openai',
            NOEMA_LLM_PRICES: prices,
          },
        });
        const call = await getLlmCall(store, out.llm_call_id!);
        const cost = (call.artifacts as Array<{ kind: string; content: Record<string, unknown> }>).find(
          (a) => a.kind === 'cost',
        );
        assert.equal(cost?.content.amount, null);
        assert.match(String(cost?.content.unknown), /no price for model "gpt-4.1"/);
        // Without a price table nothing is priced, and no cost is stored.
        const plain = await invokeSource(store, {
          source: other,
          request: { messages: [{ role: 'user', content: 'ok?' }] },
          kind: 'manual',
          resultSchema,
          env: {
            NOEMA_LLM_BASE_URL: fixture.url,
            NOEMA_LLM_API_KEY: 'sk-fixture-0123456789',
            NOEMA_LLM_PROVIDER: 'openai',
          },
        });
        const plainCall = await getLlmCall(store, plain.llm_call_id!);
        assert.equal(
          (plainCall.artifacts as Array<{ kind: string }>).some((a) => a.kind === 'cost'),
          false,
        );
        assert.equal((plainCall.tokens as { input: number }).input, 19);
      } finally {
        await fixture.close();
      }
    } finally {
      await dispose();
    }
  });
});

test('a price file that is missing or malformed is CONFIG_INVALID naming NOEMA_LLM_PRICES', () => {
  assert.throws(() => checkLlmSettings({ NOEMA_LLM_PRICES: '/nonexistent/prices.json' }), {
    code: 'CONFIG_INVALID',
    message: /NOEMA_LLM_PRICES is invalid/,
  });
  assert.throws(
    () => checkLlmSettings({ NOEMA_LLM_PRICES: pricesFile('{"currency":"USD","models":{"m":{}}}') }),
    {
      message: /NOEMA_LLM_PRICES is invalid/,
    },
  );
  assert.throws(() => checkLlmSettings({ NOEMA_LLM_PRICES: pricesFile('not json') }), {
    message: /not JSON/,
  });
  checkLlmSettings({ NOEMA_LLM_PRICES: pricesFile(PRICES) });
});
