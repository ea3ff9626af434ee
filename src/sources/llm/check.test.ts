/** `noema llm check` against the provider fixture: a real process, a real HTTP server on 127.0.0.1. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startProviderFixture } from '../../dev/provider-fixture/index.ts';
import { parseScript, startScriptedModel } from '../../dev/scripted-model/index.ts';
import { runCli } from '../../testing/cli.ts';
import { testTempDir } from '../../testing/temp-dir.ts';
import { checkLlmEndpoint, type LlmCheckReport } from './check.ts';
import { PROVIDERS } from './providers.ts';

const lineOf = (r: LlmCheckReport, c: string) => r.capabilities.find((l) => l.capability === c);

test('noema llm check prints one line per capability and one line per failure with what to set; exit 1 on a failure', async () => {
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
    assert.match(ok.stdout, /model listed +ok +o4-mini is among the 3 models listed/);
    assert.match(ok.stdout, /streaming +ok +\d+ events/);
    assert.match(ok.stdout, /usage reported +ok +input 19, output 10, cached 0, reasoning 0/);
    assert.match(ok.stdout, /structured output +ok +json_schema_strict honoured: \{"ok":true\}/);
    assert.match(ok.stdout, /latency +ok +first token \d+ ms, total \d+ ms/);
    assert.doesNotMatch(ok.stdout, /failed/);
    // What the reasoning model was sent: no temperature, no max_tokens, a strict schema.
    const body = fixture.requests[0]!.body;
    assert.equal(body.max_tokens, undefined);
    assert.equal(body.max_completion_tokens, 1024);
    fixture.next('rate_limited');
    const limited = await runCli(['llm', 'check', '--endpoint', 'fast'], env);
    assert.equal(limited.code, 1);
    assert.match(limited.stdout, /failed: streaming \(rate_limited\) — wait and check again/);
    assert.match(limited.stdout, /usage reported +skipped/);
    assert.doesNotMatch(limited.stdout + limited.stderr, /sk-check-0123456789abcdef/);
    const unset = await runCli(['llm', 'check', '--endpoint', 'slow'], env);
    assert.equal(unset.code, 1);
    assert.match(unset.stdout, /failed \(not_configured\).*NOEMA_LLM_SLOW_BASE_URL/);
    const bad = await runCli(['llm', 'check', '--endpoint', 'Fast!'], env);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--endpoint is invalid: "Fast!"/);
    const json = await runCli(['llm', 'check', '--endpoint', 'fast', '--json'], env);
    const report = JSON.parse(json.stdout) as LlmCheckReport;
    assert.deepEqual(
      report.capabilities.map((l) => [l.capability, l.status]),
      [
        ['model_listed', 'ok'],
        ['streaming', 'ok'],
        ['usage', 'ok'],
        ['structured_output', 'ok'],
        ['latency', 'ok'],
      ],
    );
    assert.equal(typeof report.first_token_ms, 'number');
  } finally {
    await fixture.close();
  }
});

test('a wrong key is auth on the model list and the call, with the key variable to set', async () => {
  const fixture = await startProviderFixture({ profile: 'openai' });
  try {
    const report = await checkLlmEndpoint({
      NOEMA_LLM_BASE_URL: fixture.url,
      NOEMA_LLM_PROVIDER: 'openai',
      NOEMA_LLM_MODEL: 'gpt-4o-mini',
      // The fixture refuses a call without a Bearer key, as OpenAI does; `auth` answers the same for a wrong one.
    });
    assert.equal(report.ok, false);
    assert.equal(lineOf(report, 'model_listed')?.problem, 'auth');
    assert.equal(lineOf(report, 'streaming')?.problem, 'auth');
    assert.match(lineOf(report, 'streaming')!.fix!, /set NOEMA_LLM_API_KEY/);
    assert.equal(report.failure_class, 'auth');
    assert.equal(lineOf(report, 'structured_output')?.status, 'skipped');
  } finally {
    await fixture.close();
  }
});

test('an unknown model is not listed and model_not_found on the call, the served models named', async () => {
  const fixture = await startProviderFixture({ profile: 'vllm', models: ['Qwen/Qwen3-4B'] });
  try {
    const report = await checkLlmEndpoint({
      NOEMA_LLM_BASE_URL: fixture.url,
      NOEMA_LLM_PROVIDER: 'vllm',
      NOEMA_LLM_MODEL: 'Qwen/Qwen3-8B',
    });
    assert.equal(report.ok, false);
    assert.equal(lineOf(report, 'model_listed')?.problem, 'model_not_listed');
    assert.equal(lineOf(report, 'streaming')?.problem, 'model_not_found');
    assert.match(lineOf(report, 'streaming')!.fix!, /set NOEMA_LLM_MODEL .*: Qwen\/Qwen3-4B/);
    assert.equal(report.failure_class, 'model_not_found');
  } finally {
    await fixture.close();
  }
});

test('a stream without usage fails the usage line only (usage_not_reported), the rest stays ok', async () => {
  const fixture = await startProviderFixture({ profile: 'ollama' });
  try {
    fixture.next('no_usage');
    const report = await checkLlmEndpoint(
      { NOEMA_LLM_BASE_URL: fixture.url, NOEMA_LLM_PROVIDER: 'ollama' },
      { model: 'qwen3:4b' },
    );
    assert.equal(report.ok, false);
    assert.equal(lineOf(report, 'usage')?.problem, 'usage_not_reported');
    assert.match(lineOf(report, 'usage')!.detail, /though stream_options.include_usage was sent/);
    assert.equal(lineOf(report, 'structured_output')?.status, 'ok');
    assert.equal(lineOf(report, 'streaming')?.status, 'ok');
    assert.equal(report.failure_class, 'usage_not_reported');
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

test('every profile passes the check against its own fixture, and a cut-off reply is truncated', async () => {
  for (const profile of PROVIDERS.filter((p) => p !== 'generic')) {
    const fixture = await startProviderFixture({ profile, models: ['m-1'] });
    try {
      const env = {
        NOEMA_LLM_BASE_URL: fixture.url,
        NOEMA_LLM_PROVIDER: profile,
        NOEMA_LLM_API_KEY: 'sk-profile-check-0123456789',
        NOEMA_LLM_MODEL: 'm-1',
      };
      const report = await checkLlmEndpoint(env);
      if (profile === 'lmstudio') {
        // LM Studio sends no usage while streaming: the one line that fails, with why.
        assert.deepEqual(
          report.capabilities.filter((l) => l.status !== 'ok').map((l) => [l.capability, l.problem]),
          [['usage', 'usage_not_reported']],
        );
        assert.match(report.hint!, /LM Studio sends no usage/);
      } else assert.equal(report.ok, true, `${profile}: ${report.message}`);
      fixture.next('length');
      const cut = await checkLlmEndpoint(env);
      assert.equal(lineOf(cut, 'structured_output')?.problem, 'truncated', profile);
      assert.match(lineOf(cut, 'structured_output')!.fix!, /MAX_TOKENS/);
    } finally {
      await fixture.close();
    }
  }
});

test('noema llm schema says per configured endpoint whether a schema is sent as written, converted or refused (pointer named), exit 1 when refused', async () => {
  const dir = testTempDir('noema-llm-schema-');
  const { writeFileSync } = await import('node:fs');
  const open = `${dir}/open.json`;
  const bad = `${dir}/bad.json`;
  writeFileSync(open, JSON.stringify({ type: 'object', properties: { n: { type: 'integer', minimum: 1 } } }));
  writeFileSync(bad, JSON.stringify({ type: 'object', properties: { n: { $ref: '#/$defs/n' } } }));
  const env = {
    NOEMA_DATA_DIR: dir,
    NOEMA_LLM_BASE_URL: 'http://127.0.0.1:47301/v1',
    NOEMA_LLM_PROVIDER: 'openai',
    NOEMA_LLM_LOCAL_BASE_URL: 'http://127.0.0.1:47302/v1',
    NOEMA_LLM_LOCAL_PROVIDER: 'vllm',
  };
  const converted = await runCli(['llm', 'schema', open], env);
  assert.equal(converted.code, 0, converted.stderr);
  assert.match(converted.stdout, /endpoint default \(openai\): converted/);
  assert.match(converted.stdout, /endpoint local \(vllm\): as written/);
  const refused = await runCli(['llm', 'schema', bad, '--endpoint', 'default'], env);
  assert.equal(refused.code, 1, refused.stderr);
  assert.match(
    refused.stdout,
    /endpoint default \(openai\): refused\n {2}\/properties\/n\/\$ref: "\$ref" has no strict-subset equivalent/,
  );
  const missing = await runCli(['llm', 'schema', `${dir}/none.json`], env);
  assert.equal(missing.code, 2);
});

test('against the scripted model (generic profile): every line ok; a refused response_format fails the structured output line', async () => {
  const model = await startScriptedModel({
    script: parseScript({
      rules: [
        { match: { model: 'small' }, reply: { reject_response_format: true } },
        { match: {}, reply: { json: { ok: true } } },
      ],
    }),
  });
  try {
    const env = { NOEMA_LLM_BASE_URL: model.url, NOEMA_LLM_MODEL: 'scripted' };
    const ok = await checkLlmEndpoint(env);
    assert.equal(ok.ok, true, ok.message);
    assert.equal(ok.provider, 'generic');
    const refused = await checkLlmEndpoint(env, { model: 'small' });
    assert.equal(lineOf(refused, 'structured_output')?.problem, 'response_format_rejected');
    assert.equal(lineOf(refused, 'streaming')?.status, 'skipped');
    assert.match(lineOf(refused, 'structured_output')!.fix!, /set NOEMA_LLM_PROVIDER .*now generic/);
    assert.equal(refused.failure_class, 'response_format_rejected');
  } finally {
    await model.close();
  }
});
