/**
 * The provider fixture as a process (`noema dev provider`): told over HTTP what to answer next, it
 * answers with the provider's recorded bodies; its strict-subset check names what a schema lacks.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PROVIDERS } from '../../sources/llm/providers.ts';
import { runCli, startCli } from '../../testing/cli.ts';
import { recordingOf } from './recordings.ts';
import { strictProblem } from './rules.ts';
import { SCENARIOS } from './server.ts';

test('noema dev provider serves one provider: its rules, its scenarios told over HTTP, SIGTERM stops it', async () => {
  const cli = startCli(['dev', 'provider', '--profile', 'gemini', '--port', '0']);
  try {
    const [, url] = await cli.waitFor(/NOEMA_LLM_BASE_URL=(\S+)/);
    const queued = await fetch(`${url!.replace(/\/v1$/, '')}/fixture/next`, {
      method: 'POST',
      body: JSON.stringify({ scenarios: ['rate_limited'] }),
    });
    assert.equal(queued.status, 200);
    const res = await fetch(`${url}/chat/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer k', 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'gemini-2.5-flash',
        messages: [{ role: 'user', content: 'hi' }],
        stream: true,
      }),
    });
    assert.equal(res.status, 429);
    assert.deepEqual(await res.json(), recordingOf('gemini').errors.rate_limited!.body);
    const bad = await fetch(`${url!.replace(/\/v1$/, '')}/fixture/next`, {
      method: 'POST',
      body: JSON.stringify({ scenarios: ['meltdown'] }),
    });
    assert.equal(bad.status, 400);
    cli.child.kill('SIGTERM');
    assert.equal(await cli.exited, 0);
  } finally {
    cli.child.kill('SIGKILL');
  }
});

test('an unknown --profile is a one-line usage error, exit 2', async () => {
  const r = await runCli(['dev', 'provider', '--profile', 'bedrock']);
  assert.equal(r.code, 2);
  assert.equal(r.stderr.trim().split('\n').length, 1);
  assert.match(r.stderr, /--profile is invalid: "bedrock"/);
});

test('every provider has a recording naming its sources, with a body for every error scenario', () => {
  for (const p of PROVIDERS) {
    const r = recordingOf(p);
    assert.ok(r.sources.length > 0 && r.sources.every((s) => /^https:\/\//.test(s)), p);
    for (const s of SCENARIOS) {
      if (
        ['rate_limited', 'server_error', 'unavailable', 'auth', 'model_not_found', 'context_length'].includes(
          s,
        )
      )
        assert.ok(r.errors[s], `${p}: ${s}`);
    }
  }
});

test('the strict-subset check names what a schema lacks, where', () => {
  assert.match(strictProblem({ type: 'array' }, [])!, /must be a JSON Schema of 'type: "object"'/);
  assert.match(
    strictProblem(
      { type: 'object', additionalProperties: false, required: [], properties: { a: { type: 'string' } } },
      [],
    )!,
    /Missing 'a'/,
  );
  assert.match(
    strictProblem(
      {
        type: 'object',
        additionalProperties: false,
        required: ['p'],
        properties: { p: { type: 'object', properties: {} } },
      },
      [],
    )!,
    /In context=\('properties', 'p'\), 'additionalProperties' is required/,
  );
  assert.equal(
    strictProblem(
      { type: 'object', additionalProperties: false, required: ['a'], properties: { a: { type: 'string' } } },
      [],
    ),
    null,
  );
});
