/** Stdio MCP servers start only as whole allowlisted command lines, and receive only allowlisted variables. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MCP_FIXTURE_PATH } from '../../dev/mcp-fixture-server.ts';
import type { Store } from '../../store/store.ts';
import { describeEachStore } from '../../testing/each-store.ts';
import { invokeSource, putMcpServer, putResponseSource } from '../index.ts';

const FIXTURE_LINE = `${process.execPath} ${MCP_FIXTURE_PATH}`;
const LLM_KEY = 'sk-operator-llm-key-1234567890';

async function envTool(store: Store, transport: Record<string, unknown>) {
  const server = await putMcpServer(store, {
    version: 1,
    label: 'fixture',
    transport: { type: 'stdio', command: process.execPath, args: [MCP_FIXTURE_PATH], ...transport },
  });
  return putResponseSource(store, {
    version: 1,
    interface: { name: 'mcp_tool', server_ref: { hash: server.hash }, tool_name: 'env', timeout_ms: 10_000 },
  });
}

describeEachStore('mcp_tool stdio policy', (factory) => {
  test('an allowlisted command with other arguments or another cwd is not_configured', async () => {
    const { store, dispose } = await factory.open();
    try {
      const env = { NOEMA_MCP_STDIO_COMMANDS: `${process.execPath}, ${FIXTURE_LINE}` };
      for (const transport of [{ args: ['-e', 'process.exit(0)'] }, { cwd: '/' }]) {
        const out = await invokeSource(store, {
          source: await envTool(store, transport),
          request: { name: 'PATH' },
          kind: 'agent_tool_call',
          env,
        });
        assert.equal(out.error?.code, 'SOURCE_NOT_CONFIGURED', JSON.stringify(transport));
        assert.match(out.error?.hint ?? '', /NOEMA_MCP_STDIO_COMMANDS/);
      }
      const cwdAllowed = await invokeSource(store, {
        source: await envTool(store, { cwd: '/' }),
        request: { name: 'PATH' },
        kind: 'agent_tool_call',
        env: { NOEMA_MCP_STDIO_COMMANDS: `cwd=/ ${FIXTURE_LINE}` },
      });
      assert.equal(cwdAllowed.ok, true, cwdAllowed.error?.message);
    } finally {
      await dispose();
    }
  });

  test('env_passthrough passes only variables listed in NOEMA_MCP_ENV_PASSTHROUGH', async () => {
    const { store, dispose } = await factory.open();
    try {
      const base = {
        NOEMA_MCP_STDIO_COMMANDS: FIXTURE_LINE,
        NOEMA_LLM_API_KEY: LLM_KEY,
        FIXTURE_VALUE: 'v1',
      };
      const asked = await invokeSource(store, {
        source: await envTool(store, { env_passthrough: ['NOEMA_LLM_API_KEY'] }),
        request: { name: 'NOEMA_LLM_API_KEY' },
        kind: 'agent_tool_call',
        env: { ...base, NOEMA_MCP_ENV_PASSTHROUGH: 'FIXTURE_VALUE' },
      });
      assert.equal(asked.error?.code, 'SOURCE_NOT_CONFIGURED');
      assert.match(asked.error?.message ?? '', /NOEMA_LLM_API_KEY/);

      const listed = await invokeSource(store, {
        source: await envTool(store, { env_passthrough: ['FIXTURE_VALUE'] }),
        request: { name: 'FIXTURE_VALUE' },
        kind: 'agent_tool_call',
        env: { ...base, NOEMA_MCP_ENV_PASSTHROUGH: 'FIXTURE_VALUE' },
      });
      assert.deepEqual(listed.output, { present: true, value: 'v1' });

      const unlisted = await invokeSource(store, {
        source: await envTool(store, {}),
        request: { name: 'NOEMA_LLM_API_KEY' },
        kind: 'agent_tool_call',
        env: base,
      });
      assert.deepEqual(unlisted.output, { present: false, value: null }, 'the child never sees the LLM key');
    } finally {
      await dispose();
    }
  });
});
