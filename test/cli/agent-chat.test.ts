/** `noema agent put` and `noema agent chat` end to end: the example definition, the scripted model, a real MCP server. */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { startFixtureHttpServer } from '../../src/dev/mcp-fixture-server.ts';
import { loadScript, startScriptedModel } from '../../src/dev/scripted-model/index.ts';
import { CALCULATOR_SCRIPT_PATH } from '../../src/testing/agent-kit.ts';
import { runCli, startCli } from '../../src/testing/cli.ts';
import { describeEachStore } from '../../src/testing/each-store.ts';

const AGENT_FILE = join(import.meta.dirname, '../../examples/agents/calculator/agent.json');

describeEachStore('noema agent chat', (factory) => {
  test('puts the example agent, then chats: streams a tool call, asks an ECS form, continues', async () => {
    await factory.withStore(async ({ url }) => {
      const model = await startScriptedModel({ script: loadScript(CALCULATOR_SCRIPT_PATH) });
      const mcp = await startFixtureHttpServer();
      const env = {
        NOEMA_DB: url,
        NOEMA_LLM_BASE_URL: model.url,
        NOEMA_LLM_MODEL: 'scripted-1',
        NOEMA_MCP_FIXTURE_URL: mcp.url,
      };
      try {
        const put = await runCli(['agent', 'put', AGENT_FILE], env);
        assert.equal(put.code, 0, put.stderr);
        const stored = JSON.parse(put.stdout) as { hash: string; label: string; tools: string[] };
        assert.equal(stored.label, 'calculator');
        assert.deepEqual(stored.tools, ['add', 'fail']);

        const chat = startCli(['agent', 'chat', 'calculator', '--user', 'ada'], env);
        await chat.waitFor(/session [0-9a-f-]{36}/);
        chat.child.stdin.write('please add 2 and 3\n');
        await chat.waitFor(/agent> 2 \+ 3 = 5/);
        assert.match(chat.stdout(), /\[tool\] add \{"a":2,"b":3\} → COMPLETED \{"sum":5\}/);
        assert.match(chat.stdout(), /\[memory\] saved #\d+: Ada practises additions/);
        chat.child.stdin.write('please book a slot\n');
        await chat.waitFor(/\[form\] Pick a day — Which day should I book\?/);
        chat.child.stdin.write('sunday\n');
        await chat.waitFor(/invalid answer: .*must be equal to one of the allowed values/);
        chat.child.stdin.write('monday\n');
        await chat.waitFor(/agent> Booked for the chosen day\./);
        chat.child.stdin.end();
        assert.equal(await chat.exited, 0, chat.stderr());
      } finally {
        await model.close();
        await mcp.close();
      }
    });
  });

  test('an unknown agent is a clear error', async () => {
    await factory.withStore(async ({ url }) => {
      const r = await runCli(['agent', 'chat', 'nobody'], { NOEMA_DB: url });
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /UNKNOWN_AGENT|no agent definition labelled "nobody"/);
    });
  });
});
