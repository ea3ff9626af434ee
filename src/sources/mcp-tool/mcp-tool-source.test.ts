/** The mcp_tool source against a real MCP server over stdio (the SDK fixture in src/testing). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MCP_FIXTURE_PATH, startFixtureHttpServer } from '../../dev/mcp-fixture-server.ts';
import type { Store } from '../../store/store.ts';
import { describeEachStore } from '../../testing/each-store.ts';
import { recordingTransactions } from '../../testing/recording-store.ts';
import { testTempDir } from '../../testing/temp-dir.ts';
import {
  getSourceInvocation,
  invokeSource,
  putJsonSchema,
  putMcpServer,
  putResponseSource,
} from '../index.ts';

const ENV = { ...process.env, NOEMA_MCP_STDIO_COMMANDS: `${process.execPath} ${MCP_FIXTURE_PATH}` } as Record<
  string,
  string | undefined
>;

async function tool(store: Store, toolName: string, timeout_ms = 10_000) {
  const server = await putMcpServer(store, {
    version: 1,
    label: 'fixture',
    transport: { type: 'stdio', command: process.execPath, args: [MCP_FIXTURE_PATH] },
  });
  return putResponseSource(store, {
    version: 1,
    label: `mcp_${toolName}`,
    interface: { name: 'mcp_tool', server_ref: { hash: server.hash }, tool_name: toolName, timeout_ms },
  });
}

describeEachStore('mcp_tool source', (factory) => {
  test('structured content, JSON text and plain text results normalize to JSON', async () => {
    const { store, dispose } = await factory.open();
    try {
      const schema = await putJsonSchema(store, { type: 'object', required: ['sum'] });
      const add = await invokeSource(store, {
        source: await tool(store, 'add'),
        request: { a: 2, b: 40 },
        kind: 'model_elected_tool',
        resultSchema: schema,
        env: ENV,
      });
      assert.equal(add.ok, true, add.error?.message);
      assert.deepEqual(add.output, { sum: 42 });
      const inv = await getSourceInvocation(store, add.source_invocation_id);
      assert.equal(inv.status, 'succeeded');
      assert.equal(inv.interface_name, 'mcp_tool');
      assert.equal((inv.metadata as { transport: string }).transport, 'stdio');

      const weather = await invokeSource(store, {
        source: await tool(store, 'weather_json'),
        request: { turn: 2 },
        kind: 'ambient_context',
        env: ENV,
      });
      assert.deepEqual(weather.output, { temperature_f: 64 });
      const echo = await invokeSource(store, {
        source: await tool(store, 'echo'),
        request: { message: 'hi bob' },
        kind: 'agent_tool_call',
        env: ENV,
      });
      assert.deepEqual(echo.output, { text: 'hi bob' });
    } finally {
      await dispose();
    }
  });

  test('isError fails with the tool message; a slow tool times out; unknown tools and disallowed commands fail', async () => {
    const { store, dispose } = await factory.open();
    try {
      const failed = await invokeSource(store, {
        source: await tool(store, 'fail'),
        request: { reason: 'no coins' },
        kind: 'model_elected_tool',
        env: ENV,
      });
      assert.equal(failed.failure_class, 'tool_error');
      assert.match(failed.error!.message, /cannot comply: no coins/);
      assert.equal((await getSourceInvocation(store, failed.source_invocation_id)).status, 'failed');

      const slow = await invokeSource(store, {
        source: await tool(store, 'sleep', 300),
        request: { ms: 5_000 },
        kind: 'model_elected_tool',
        env: ENV,
      });
      assert.equal(slow.failure_class, 'timeout');

      const unknown = await invokeSource(store, {
        source: await tool(store, 'no_such_tool'),
        request: {},
        kind: 'model_elected_tool',
        env: ENV,
      });
      assert.equal(unknown.ok, false);
      assert.ok(['protocol', 'tool_error'].includes(unknown.failure_class!), String(unknown.failure_class));

      const denied = await invokeSource(store, {
        source: await tool(store, 'echo'),
        request: { message: 'x' },
        kind: 'model_elected_tool',
        env: {},
      });
      assert.equal(denied.failure_class, 'not_configured');
    } finally {
      await dispose();
    }
  });

  test('a tool call reads its server config once per store handle, and an unknown config still fails', async () => {
    const { store: inner, dispose } = await factory.open();
    try {
      const { store, reads } = recordingTransactions(inner);
      const add = await tool(store, 'add');
      reads.length = 0;
      for (let i = 0; i < 2; i++) {
        const r = await invokeSource(store, {
          source: add,
          request: { a: 1, b: i },
          kind: 'agent_tool_call',
          env: ENV,
        });
        assert.deepEqual(r.output, { sum: 1 + i });
      }
      assert.equal(reads.filter((sql) => sql.includes('FROM mcp_servers')).length, 1);
      const missing = await putResponseSource(store, {
        version: 1,
        label: 'mcp_missing',
        interface: {
          name: 'mcp_tool',
          server_ref: { hash: 'f'.repeat(64) },
          tool_name: 'add',
          timeout_ms: 1000,
        },
      }).catch((err: { code?: string }) => err.code);
      assert.equal(missing, 'UNKNOWN_MCP_SERVER');
    } finally {
      await dispose();
    }
  });
});

describeEachStore('mcp_tool source over streamable HTTP', (factory) => {
  test('calls the tool with the token from the environment, never storing it; a missing token is not_configured', async () => {
    const { store, dispose } = await factory.open();
    const token = 'mcp-http-token-4242abcd';
    const http = await startFixtureHttpServer({ token });
    try {
      const server = await putMcpServer(store, {
        version: 1,
        transport: {
          type: 'streamable_http',
          url_env: 'FIXTURE_MCP_URL',
          token_env: 'FIXTURE_MCP_URL_TOKEN',
        },
      });
      const source = await putResponseSource(store, {
        version: 1,
        interface: {
          name: 'mcp_tool',
          server_ref: { hash: server.hash },
          tool_name: 'add',
          timeout_ms: 5000,
        },
      });
      const out = await invokeSource(store, {
        source,
        request: { a: 20, b: 22, note: `token ${token}` },
        kind: 'model_elected_tool',
        env: { FIXTURE_MCP_URL: http.url, FIXTURE_MCP_URL_TOKEN: token },
      });
      assert.equal(out.ok, true, out.error?.message);
      assert.deepEqual(out.output, { sum: 42 });
      const stored = JSON.stringify(await store.all('SELECT * FROM source_invocations'));
      assert.equal(stored.includes(token), false, 'the token is stored nowhere');

      const missing = await invokeSource(store, {
        source,
        request: { a: 1, b: 2 },
        kind: 'model_elected_tool',
        env: { FIXTURE_MCP_URL: http.url },
      });
      assert.equal(missing.failure_class, 'not_configured');
    } finally {
      await http.close();
      await dispose();
    }
  });

  test('a server config naming any token variable but <url_env>_TOKEN is not_configured and sends nothing', async () => {
    const { store, dispose } = await factory.open();
    const http = await startFixtureHttpServer({ token: 'the-right-token-123456' });
    try {
      const server = await putMcpServer(store, {
        version: 1,
        transport: { type: 'streamable_http', url_env: 'FIXTURE_MCP_URL', token_env: 'NOEMA_LLM_API_KEY' },
      });
      const source = await putResponseSource(store, {
        version: 1,
        interface: {
          name: 'mcp_tool',
          server_ref: { hash: server.hash },
          tool_name: 'add',
          timeout_ms: 5000,
        },
      });
      const out = await invokeSource(store, {
        source,
        request: { a: 1, b: 2 },
        kind: 'model_elected_tool',
        env: { FIXTURE_MCP_URL: http.url, NOEMA_LLM_API_KEY: 'sk-llm-key-must-not-leave' },
      });
      assert.equal(out.ok, false);
      assert.equal(out.failure_class, 'not_configured');
      assert.match(out.error?.message ?? '', /FIXTURE_MCP_URL_TOKEN/);
      assert.equal(http.requests(), 0, 'nothing was sent to the server');
    } finally {
      await http.close();
      await dispose();
    }
  });
});

// One store suffices: the lookup miss is refused before anything is written; the lookup itself runs on both stores above.
test('a source referencing an unknown MCP server config is refused', async () => {
  const { openTestStore } = await import('../../testing/stores.ts');
  const { store, dispose } = await openTestStore('sqlite');
  try {
    await assert.rejects(
      putResponseSource(store, {
        version: 1,
        interface: {
          name: 'mcp_tool',
          server_ref: { hash: 'a'.repeat(64) },
          tool_name: 'x',
          timeout_ms: 100,
        },
      }),
      (e: Error & { code?: string }) => e.code === 'UNKNOWN_MCP_SERVER',
    );
  } finally {
    await dispose();
  }
});

// One store suffices: this checks interoperability with a third-party server, not storage (on both stores above).
test('a third-party MCP server (@modelcontextprotocol/server-memory) works as an mcp_tool source', async () => {
  const { openTestStore } = await import('../../testing/stores.ts');
  const { join } = await import('node:path');
  const { createRequire } = await import('node:module');
  const serverPath = createRequire(import.meta.url).resolve(
    '@modelcontextprotocol/server-memory/dist/index.js',
  );
  const { store, dispose } = await openTestStore('sqlite');
  try {
    const server = await putMcpServer(store, {
      version: 1,
      label: 'memory',
      transport: {
        type: 'stdio',
        command: process.execPath,
        args: [serverPath],
        env_passthrough: ['MEMORY_FILE_PATH'],
      },
    });
    const toolSource = (tool_name: string) =>
      putResponseSource(store, {
        version: 1,
        interface: { name: 'mcp_tool', server_ref: { hash: server.hash }, tool_name, timeout_ms: 10_000 },
      });
    const env = {
      ...ENV,
      NOEMA_MCP_STDIO_COMMANDS: `${process.execPath} ${serverPath}`,
      NOEMA_MCP_ENV_PASSTHROUGH: 'MEMORY_FILE_PATH',
      MEMORY_FILE_PATH: join(testTempDir('noema-mem-'), 'memory.jsonl'),
    };
    const created = await invokeSource(store, {
      source: await toolSource('create_entities'),
      request: {
        entities: [{ name: 'bob', entityType: 'person', observations: ['hungry near the vending machine'] }],
      },
      kind: 'agent_tool_call',
      env,
    });
    assert.equal(created.ok, true, created.error?.message);
    const graph = await invokeSource(store, {
      source: await toolSource('read_graph'),
      request: {},
      kind: 'agent_tool_call',
      env,
    });
    assert.equal(graph.ok, true, graph.error?.message);
    const entities = (graph.output as { entities: Array<{ name: string; observations: string[] }> }).entities;
    assert.deepEqual(
      entities.map((e) => [e.name, e.observations]),
      [['bob', ['hungry near the vending machine']]],
    );
  } finally {
    await dispose();
  }
});
