/** The sources CLI end to end: `source invoke`, `dev toys`, `dev scripted-model`, as real processes. */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { MCP_FIXTURE_PATH } from '../../src/dev/mcp-fixture-server.ts';
import { startToyServices, toyResultSchemas, toySources } from '../../src/dev/toys/index.ts';
import { runCli, startCli } from '../../src/testing/cli.ts';
import { describeEachStore } from '../../src/testing/each-store.ts';
import { testTempDir } from '../../src/testing/temp-dir.ts';

function files(docs: Record<string, unknown>): Record<string, string> {
  const dir = testTempDir('noema-cli-src-');
  const out: Record<string, string> = {};
  for (const [name, doc] of Object.entries(docs)) {
    out[name] = join(dir, `${name}.json`);
    writeFileSync(out[name], JSON.stringify(doc));
  }
  return out;
}

describeEachStore('noema source invoke', (factory) => {
  test('prints the succeeded invocation record and exits 0; exits 1 with the record when the call fails', async () => {
    const { url, dispose } = await factory.open();
    const toys = await startToyServices();
    const f = files({
      weather: toySources.weather,
      schema: toyResultSchemas.weather,
      pa: toyResultSchemas.pa,
    });
    try {
      const ok = await runCli(
        ['source', 'invoke', f.weather!, '--request', '{"turn":3}', '--result-schema', f.schema!],
        {
          NOEMA_DB: url,
          ...toys.env,
        },
      );
      assert.equal(ok.code, 0, ok.stderr);
      const record = JSON.parse(ok.stdout) as Record<string, unknown>;
      assert.equal(record.status, 'succeeded');
      assert.equal(record.validation_status, 'valid');
      assert.deepEqual(record.response_json, {
        temperature_f: 55,
        condition: 'cold',
        message: 'The cold front has settled over the park.',
      });

      const invalid = await runCli(
        ['source', 'invoke', f.weather!, '--request', '{"turn":1}', '--result-schema', f.pa!],
        {
          NOEMA_DB: url,
          ...toys.env,
        },
      );
      assert.equal(invalid.code, 1);
      const failed = JSON.parse(invalid.stdout) as {
        status: string;
        failure_class: string;
        error: { code: string };
      };
      assert.equal(failed.status, 'failed');
      assert.equal(failed.failure_class, 'schema_invalid');
      assert.equal(failed.error.code, 'SOURCE_SCHEMA_INVALID');

      const unset = await runCli(['source', 'invoke', f.weather!, '--request', '{"turn":1}'], {
        NOEMA_DB: url,
        NOEMA_TOY_WEATHER_URL: '',
      });
      assert.equal(unset.code, 1);
      assert.equal((JSON.parse(unset.stdout) as { failure_class: string }).failure_class, 'not_configured');
    } finally {
      await toys.close();
      await dispose();
    }
  });
});

// One store suffices: this checks the --mcp-server flag; invocations are stored on both stores above.
test('source invoke calls an MCP tool over stdio with --mcp-server', async () => {
  const dir = testTempDir('noema-cli-mcp-');
  const f = files({
    server: {
      version: 1,
      label: 'fixture',
      transport: { type: 'stdio', command: process.execPath, args: [MCP_FIXTURE_PATH] },
    },
    tool: {
      version: 1,
      label: 'adder',
      interface: { name: 'mcp_tool', tool_name: 'add', timeout_ms: 10000 },
    },
  });
  const r = await runCli(
    ['source', 'invoke', f.tool!, '--mcp-server', f.server!, '--request', '{"a":1,"b":2}'],
    {
      NOEMA_DB: join(dir, 'n.db'),
      NOEMA_MCP_STDIO_COMMANDS: `${process.execPath} ${MCP_FIXTURE_PATH}`,
    },
  );
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.deepEqual(
    (JSON.parse(r.stdout) as { response_json: { structuredContent: unknown } }).response_json
      .structuredContent,
    {
      sum: 3,
    },
  );
});

// One store suffices: the flag is refused before the store is written.
test('source invoke rejects a bad request flag as a usage error', async () => {
  const f = files({ weather: toySources.weather });
  const r = await runCli(['source', 'invoke', f.weather!, '--request', '{nope'], {
    NOEMA_DB: join(testTempDir('noema-cli-'), 'n.db'),
  });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--request is not JSON/);
});

test('dev toys serves the park services, deterministic by turn, until SIGTERM', async () => {
  const toys = startCli(['dev', 'toys', '--port', '0']);
  try {
    const [, url] = await toys.waitFor(/toy services serving on (http:\/\/127\.0\.0\.1:\d+)/);
    await toys.waitFor(/NOEMA_TOY_FOUNTAIN_URL=/);
    const post = async (path: string, body: unknown) =>
      (await (await fetch(`${url}${path}`, { method: 'POST', body: JSON.stringify(body) })).json()) as Record<
        string,
        unknown
      >;
    const temps = [];
    for (const turn of [1, 2, 3]) temps.push((await post('/weather', { turn })).temperature_f);
    assert.deepEqual(temps, [72, 64, 55]);
    assert.equal((await post('/buy_candy', { machine_id: 'vm' })).status, 'dispensed');
    assert.equal((await post('/buy_candy', { machine_id: 'vm' })).status, 'empty');
    toys.child.kill('SIGTERM');
    assert.equal(await toys.exited, 0);
  } finally {
    toys.child.kill('SIGKILL');
  }
});

test('dev scripted-model serves a script as an OpenAI-compatible streaming endpoint', async () => {
  const f = files({
    script: { rules: [{ match: { last_message_contains: 'weather' }, reply: { json: { ok: true } } }] },
  });
  const model = startCli(['dev', 'scripted-model', '--script', f.script!, '--port', '0']);
  try {
    const [, url] = await model.waitFor(/NOEMA_LLM_BASE_URL=(\S+)/);
    const res = await fetch(`${url}/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({
        model: 'x',
        stream: true,
        messages: [{ role: 'user', content: 'how is the weather' }],
      }),
    });
    assert.equal(res.headers.get('content-type'), 'text/event-stream');
    const text = await res.text();
    assert.match(text, /data: \[DONE\]/);
    const content = text
      .split('\n')
      .filter((l) => l.startsWith('data: {'))
      .map(
        (l) =>
          (JSON.parse(l.slice(6)) as { choices: Array<{ delta?: { content?: string } }> }).choices[0]?.delta
            ?.content ?? '',
      )
      .join('');
    assert.deepEqual(JSON.parse(content), { ok: true });
    const unmatched = await fetch(`${url}/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: 'x', messages: [{ role: 'user', content: 'hello' }] }),
    });
    assert.equal(unmatched.status, 500);
    model.child.kill('SIGINT');
    assert.equal(await model.exited, 0);
  } finally {
    model.child.kill('SIGKILL');
  }
});

test('dev scripted-model refuses an invalid script with a usage error', async () => {
  const f = files({ script: { rules: [{ reply: { json: 1, colour: 'blue' } }] } });
  const r = await runCli(['dev', 'scripted-model', '--script', f.script!]);
  assert.notEqual(r.code, 0);
  assert.match(r.stderr, /model script/);
});
