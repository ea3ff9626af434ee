/** A bad provider or token limit in the environment: a one-line error naming it, exit 2, nothing created. */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli } from '../../testing/cli.ts';
import { describeEachStore } from '../../testing/each-store.ts';
import { testTempDir } from '../../testing/temp-dir.ts';
import { putResponseSource } from '../index.ts';
import { checkLlmSettings } from './settings.ts';

test('a bad provider name or token limit is a one-line CONFIG_INVALID naming the setting, exit 2, before the store is created', async () => {
  const dir = testTempDir('noema-llm-cfg-');
  const db = join(dir, 'n.db');
  for (const [variable, value, pattern] of [
    [
      'NOEMA_LLM_PROVIDER',
      'openia',
      /^noema: NOEMA_LLM_PROVIDER is invalid: "openia" is not a provider \(generic, openai/,
    ],
    ['NOEMA_LLM_FAST_PROVIDER', 'bedrock', /^noema: NOEMA_LLM_FAST_PROVIDER is invalid/],
    ['NOEMA_LLM_MAX_TOKENS', '0', /^noema: NOEMA_LLM_MAX_TOKENS is invalid: "0" is not a token count/],
    ['NOEMA_LLM_FAST_MAX_TOKENS', '12k', /^noema: NOEMA_LLM_FAST_MAX_TOKENS is invalid/],
  ] as const) {
    const r = await runCli(['migrate'], { NOEMA_DB: db, [variable]: value });
    assert.equal(r.code, 2, r.stderr);
    const lines = r.stderr.trim().split('\n');
    assert.equal(lines.length, 1, r.stderr);
    assert.match(lines[0]!, pattern);
    assert.equal(existsSync(db), false, `${variable}: the store was not created`);
  }
});

test('good settings pass; a model alias named like a setting is not one', () => {
  checkLlmSettings({
    NOEMA_LLM_PROVIDER: 'OpenAI',
    NOEMA_LLM_FAST_PROVIDER: 'llamacpp',
    NOEMA_LLM_MAX_TOKENS: '4096',
    NOEMA_LLM_MODEL_PROVIDER: 'some-model',
  });
  assert.throws(() => checkLlmSettings({ NOEMA_LLM_PROVIDER: 'nope' }), { code: 'CONFIG_INVALID' });
});

describeEachStore('LLM source limits', (factory) => {
  test('a source whose token limit or temperature is out of range is refused, typed, and nothing is stored', async () => {
    await factory.withStore(async ({ store }) => {
      for (const bad of [
        { max_tokens: 0 },
        { max_tokens: 20_000_000 },
        { temperature: 3 },
        { max_tokens: 1.5 },
      ]) {
        await assert.rejects(
          putResponseSource(store, {
            version: 1,
            interface: {
              name: 'llm_chat_completions',
              model: 'm',
              schema_delivery: 'response_format',
              ...bad,
            },
          }),
          (err: { code?: string }) => err.code === 'INVALID_INPUT' || err.code === 'RESPONSE_SOURCE_INVALID',
          JSON.stringify(bad),
        );
      }
      const rows = await store.all('SELECT hash FROM response_sources');
      assert.equal(rows.length, 0);
    });
  });
});
