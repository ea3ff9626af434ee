/** `noema llm check` against the provider fixture: a real process, a real HTTP server on 127.0.0.1. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startProviderFixture } from '../../dev/provider-fixture/index.ts';
import { runCli } from '../../testing/cli.ts';
import { testTempDir } from '../../testing/temp-dir.ts';
import { checkLlmEndpoint } from './check.ts';

test('noema llm check calls the endpoint as its profile sends it and says what came back; exit 1 on a failure class', async () => {
  const fixture = await startProviderFixture({ profile: 'openai' });
  const dir = testTempDir('noema-llm-check-');
  const env = {
    NOEMA_DATA_DIR: dir,
    NOEMA_LLM_FAST_BASE_URL: fixture.url,
    NOEMA_LLM_FAST_API_KEY: 'sk-check-0123456789abcdef',
    NOEMA_LLM_FAST_MODEL: 'o4-mini',
    NOEMA_LLM_FAST_PROVIDER: 'openai',
  };
  try {
    const ok = await runCli(['llm', 'check', '--endpoint', 'fast'], env);
    assert.equal(ok.code, 0, ok.stderr + ok.stdout);
    assert.match(ok.stdout, /endpoint fast: openai at http:\/\/127\.0\.0\.1:\d+\/v1, model o4-mini/);
    assert.match(ok.stdout, /sent: token limit as max_completion_tokens, schema json_schema_strict/);
    assert.match(ok.stdout, /ok in \d+ ms: \{"ok":true\}/);
    assert.match(ok.stdout, /tokens: input 19, output 10, cached 0, reasoning 0/);
    // What the reasoning model was sent: no temperature, no max_tokens, a strict schema.
    const body = fixture.requests[0]!.body;
    assert.equal(body.max_tokens, undefined);
    assert.equal(body.max_completion_tokens, 1024);
    fixture.next('rate_limited');
    const limited = await runCli(['llm', 'check', '--endpoint', 'fast'], env);
    assert.equal(limited.code, 1);
    assert.match(limited.stdout, /failed \(rate_limited\)/);
    assert.doesNotMatch(limited.stdout + limited.stderr, /sk-check-0123456789abcdef/);
    const unset = await runCli(['llm', 'check', '--endpoint', 'slow'], env);
    assert.equal(unset.code, 1);
    assert.match(unset.stdout, /failed \(not_configured\).*NOEMA_LLM_SLOW_BASE_URL/);
    const bad = await runCli(['llm', 'check', '--endpoint', 'Fast!'], env);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--endpoint is invalid: "Fast!"/);
  } finally {
    await fixture.close();
  }
});

test('the check reports tokens not reported and reasoning received (Ollama)', async () => {
  const fixture = await startProviderFixture({ profile: 'ollama' });
  try {
    const report = await checkLlmEndpoint(
      { NOEMA_LLM_BASE_URL: fixture.url, NOEMA_LLM_PROVIDER: 'ollama' },
      { model: 'qwen3:4b' },
    );
    assert.equal(report.ok, true, report.message);
    assert.equal(report.reasoning, true);
    assert.deepEqual(report.tokens?.not_reported, ['cached', 'reasoning']);
    assert.equal(fixture.requests[0]!.body.model, 'qwen3:4b');
  } finally {
    await fixture.close();
  }
});
