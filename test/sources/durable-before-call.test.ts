/**
 * "Durable before the call", checked at the moment each request arrives: the scripted model, the
 * toy HTTP services and the MCP fixture server call a hook the test installs, which reads — from
 * ANOTHER connection — the `running` source_invocations row (and llm_calls row, and the engine
 * contract) that must already be committed before a byte left the caller.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startFixtureHttpServer } from '../../src/dev/mcp-fixture-server.ts';
import { startScriptedModel } from '../../src/dev/scripted-model/index.ts';
import { startToyServices, toySources } from '../../src/dev/toys/index.ts';
import { sourcesExecutor } from '../../src/engine/actions/sources-executor.ts';
import { createEngine } from '../../src/engine/index.ts';
import { invokeSource, putMcpServer, putResponseSource } from '../../src/sources/index.ts';
import { openStore, parseStoreTarget, type Store } from '../../src/store/index.ts';
import { describeEachStore } from '../../src/testing/each-store.ts';

type Seen = Array<{ source_invocation_id: string; llm_call_id: string | null; contract_id: string | null }>;

/**
 * What another connection sees committed right now. Bounded: if the caller still held an open
 * transaction (SQLite's writer lock), the read would wait on it — reported as `blocked`, not a hang.
 */
async function committedRunning(other: Store): Promise<Seen | 'blocked'> {
  const read = other.all<Seen[number]>(
    "SELECT source_invocation_id, llm_call_id, contract_id FROM source_invocations WHERE status = 'running'",
  );
  const timeout = new Promise<'blocked'>((r) => setTimeout(() => r('blocked'), 3000).unref());
  return Promise.race([read, timeout]);
}

async function withOther<T>(url: string, fn: (other: Store) => Promise<T>): Promise<T> {
  const other = await openStore(parseStoreTarget(url));
  try {
    return await fn(other);
  } finally {
    await other.close();
  }
}

describeEachStore('durable before the call', (factory) => {
  test('the scripted model receives a request only after its running invocation and llm_calls rows are committed', async () => {
    const { store, url, dispose } = await factory.open();
    await withOther(url, async (other) => {
      const seen: Array<{ rows: Seen | 'blocked'; llm: string | null | 'blocked' }> = [];
      const model = await startScriptedModel({
        script: { rules: [{ reply: { json: { ok: true } } }] },
        onRequest: async () => {
          const rows = await committedRunning(other);
          const id = rows === 'blocked' ? null : (rows[0]?.llm_call_id ?? null);
          const llm = id
            ? ((
                await other.get<{ status: string }>('SELECT status FROM llm_calls WHERE llm_call_id = ?', [
                  id,
                ])
              )?.status ?? null)
            : null;
          seen.push({ rows, llm });
        },
      });
      try {
        const source = await putResponseSource(store, {
          version: 1,
          interface: { name: 'llm_chat_completions', model: 'scripted', schema_delivery: 'response_format' },
        });
        const out = await invokeSource(store, {
          source,
          request: { messages: [{ role: 'user', content: 'hi' }] },
          kind: 'llm_generation',
          env: { NOEMA_LLM_BASE_URL: model.url },
        });
        assert.equal(out.ok, true, out.error?.message);
        assert.equal(seen.length, 1);
        const [first] = seen;
        assert.notEqual(first!.rows, 'blocked', 'the caller held no transaction open while calling');
        assert.deepEqual(
          (first!.rows as Seen).map((r) => r.source_invocation_id),
          [out.source_invocation_id],
          'the running row was committed when the request arrived',
        );
        assert.equal(first!.llm, 'running', 'the llm_calls row was committed too');
      } finally {
        await model.close();
      }
    });
    await dispose();
  });

  test('a toy service called through an engine action sees the RUNNING contract and its running invocation committed', async () => {
    const { store, url, dispose } = await factory.open();
    await withOther(url, async (other) => {
      const seen: Array<{ rows: Seen | 'blocked'; contract: string | null }> = [];
      const toys = await startToyServices({
        onRequest: async () => {
          const rows = await committedRunning(other);
          const cid = rows === 'blocked' ? null : (rows[0]?.contract_id ?? null);
          const contract = cid
            ? ((
                await other.get<{ status: string }>(
                  'SELECT status FROM engine_contracts WHERE contract_id = ?',
                  [cid],
                )
              )?.status ?? null)
            : null;
          seen.push({ rows, contract });
        },
      });
      const engine = createEngine(store, { actions: sourcesExecutor(store, { env: toys.env }) });
      try {
        const weather = await putResponseSource(store, toySources.weather);
        engine.register({
          type: 'ask_weather',
          async execute(ctx) {
            const c = await ctx.act('tool_call', { source_hash: weather.hash, request: { turn: 1 } });
            return { kind: 'ok', output: c.status };
          },
        });
        const out = await engine.start({
          entry: 'w',
          nodes: [
            { id: 'w', type: 'ask_weather' },
            { id: 'end', type: 'terminal' },
          ],
          connectors: [{ from: 'w', to: 'end' }],
        });
        assert.equal(out.status, 'completed', JSON.stringify(out.error));
        assert.equal(seen.length, 1);
        assert.notEqual(seen[0]!.rows, 'blocked', 'the caller held no transaction open while calling');
        const rows = seen[0]!.rows as Seen;
        assert.equal(rows.length, 1, 'the running row was committed when the request arrived');
        assert.equal(seen[0]!.contract, 'RUNNING', 'the contract was RUNNING, durably, before the call');
      } finally {
        await engine.close();
        await toys.close();
      }
    });
    await dispose();
  });

  test('the MCP fixture server sees the running invocation committed when the client connects', async () => {
    const { store, url, dispose } = await factory.open();
    await withOther(url, async (other) => {
      const seen: Array<Seen | 'blocked'> = [];
      const http = await startFixtureHttpServer({
        onRequest: async () => {
          seen.push(await committedRunning(other));
        },
      });
      try {
        const server = await putMcpServer(store, {
          version: 1,
          transport: { type: 'streamable_http', url_env: 'FIXTURE_MCP_URL' },
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
          env: { FIXTURE_MCP_URL: http.url },
        });
        assert.equal(out.ok, true, out.error?.message);
        assert.ok(seen.length >= 2, `every MCP request was observed (${seen.length})`);
        for (const [i, rows] of seen.entries()) {
          assert.notEqual(rows, 'blocked', `request ${i + 1}: no transaction held open`);
          assert.deepEqual(
            (rows as Seen).map((r) => r.source_invocation_id),
            [out.source_invocation_id],
            `request ${i + 1} (the first is initialize) arrived after the running row was committed`,
          );
        }
      } finally {
        await http.close();
      }
    });
    await dispose();
  });
});
