/**
 * Tokens and cost summed over a run's (or a world attempt's) LLM calls when read: counts the provider
 * did not report are counted as such, the cost summed per currency, unpriced calls counted.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { startProviderFixture } from '../../dev/provider-fixture/index.ts';
import { describeEachStore } from '../../testing/each-store.ts';
import { testTempDir } from '../../testing/temp-dir.ts';
import { invokeSource, llmUsageSum, putJsonSchema, putResponseSource } from '../index.ts';

const SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['ok'],
  properties: { ok: { type: 'boolean' } },
};

describeEachStore('LLM usage sums', (factory) => {
  test('a run and an attempt: tokens, not reported counts, cost per currency, unpriced calls', async () => {
    await factory.withStore(async ({ store }) => {
      const prices = join(testTempDir('noema-prices-'), 'prices.json');
      writeFileSync(
        prices,
        JSON.stringify({
          currency: 'USD',
          models: { 'gpt-4o': { input_per_mtok: 2.5, output_per_mtok: 10 } },
        }),
      );
      const source = (model: string) =>
        putResponseSource(store, {
          version: 1,
          interface: { name: 'llm_chat_completions', model, schema_delivery: 'response_format' },
        });
      const priced = await source('gpt-4o');
      const unpriced = await source('gpt-4.1');
      const resultSchema = await putJsonSchema(store, SCHEMA);
      const calls: Array<[string, typeof priced, Record<string, string>]> = [
        ['openai', priced, { run_id: 'run-1' }],
        ['ollama', priced, { run_id: 'run-1' }],
        ['openai', unpriced, { run_id: 'run-1' }],
        ['openai', priced, { run_id: 'run-2' }],
        ['openai', priced, { run_id: 'run-3', attempt_id: 'attempt-1' }],
      ];
      for (const [profile, src, links] of calls) {
        const fixture = await startProviderFixture({ profile: profile as 'openai' });
        try {
          const out = await invokeSource(store, {
            source: src,
            request: { messages: [{ role: 'user', content: 'ok?' }] },
            kind: 'manual',
            links,
            resultSchema,
            env: {
              NOEMA_LLM_BASE_URL: fixture.url,
              NOEMA_LLM_API_KEY: 'sk-fixture-0123456789',
              NOEMA_LLM_PROVIDER: profile,
              NOEMA_LLM_PRICES: prices,
            },
          });
          assert.equal(out.ok, true, out.error?.message);
        } finally {
          await fixture.close();
        }
      }
      const run = await llmUsageSum(store, { run_ids: ['run-1'] });
      assert.equal(run.calls, 3);
      assert.deepEqual(run.tokens, { input: 57, output: 30, cached: 0, reasoning: 0 });
      assert.deepEqual(run.not_reported, { input: 0, output: 0, cached: 1, reasoning: 1 });
      assert.deepEqual(Object.keys(run.cost), ['USD']);
      assert.ok(Math.abs(run.cost.USD! - 2 * 0.0001475) < 1e-12, String(run.cost.USD));
      assert.equal(run.unpriced, 1);
      const two = await llmUsageSum(store, { run_ids: ['run-1', 'run-2'] });
      assert.equal(two.calls, 4);
      const attempt = await llmUsageSum(store, { attempt_id: 'attempt-1' });
      assert.equal(attempt.calls, 1);
      assert.deepEqual(attempt.tokens, { input: 19, output: 10, cached: 0, reasoning: 0 });
      const none = await llmUsageSum(store, { run_ids: [] });
      assert.deepEqual(none, {
        calls: 0,
        tokens: { input: 0, output: 0, cached: 0, reasoning: 0 },
        not_reported: { input: 0, output: 0, cached: 0, reasoning: 0 },
        cost: {},
        unpriced: 0,
      });
    });
  });
});
