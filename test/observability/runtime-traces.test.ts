// OpenTelemetry traces of a world turn and of an agent message with a tool call, over the real HTTP
// surface under an incoming traceparent, exported to a real OTLP/HTTP receiver; on both stores.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startFixtureHttpServer } from '../../src/dev/mcp-fixture-server.ts';
import { loadScript, startScriptedModel } from '../../src/dev/scripted-model/index.ts';
import { putMcpServer, putResponseSource } from '../../src/sources/index.ts';
import type { Store } from '../../src/store/store.ts';
import { startNoemaHttp } from '../../src/surfaces/http/start.ts';
import { CALCULATOR_SCRIPT_PATH, calculatorDefinition } from '../../src/testing/agent-kit.ts';
import { describeEachStore } from '../../src/testing/each-store.ts';
import { testTempDir } from '../../src/testing/temp-dir.ts';
import { startParkKit } from '../../src/testing/world-kit.ts';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from './otlp-receiver.ts';
import { recordingProxy } from './recording-proxy.ts';

const TOKEN = 'otel-runtime-token-0123456789';
const TRACE = '0af7651916cd43dd8448eb211c80319c';
const PARENT = 'b7ad6b7169203331';
const traceparent = `00-${TRACE}-${PARENT}-01`;

async function serve(store: Store, receiver: OtlpReceiver) {
  return startNoemaHttp({
    store,
    host: '127.0.0.1',
    port: 0,
    portSetting: '--port',
    token: TOKEN,
    dataDir: testTempDir('noema-otel-rt-'),
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' },
  });
}

async function call(url: string, method: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, text: await res.text() };
}

/** The run span of `kind` under the incoming parent, and every span of the trace. */
function runOf(spans: ReceivedSpan[], kind: string): ReceivedSpan {
  assert.deepEqual([...new Set(spans.map((s) => s.traceId))], [TRACE], 'one trace, the caller’s');
  const runs = spans.filter((s) => s.attributes['noema.run.kind'] === kind);
  assert.ok(runs.length >= 1, `a ${kind} run span`);
  for (const r of runs) assert.equal(r.parentSpanId, PARENT, 'the incoming traceparent is the run’s parent');
  return runs[0]!;
}

describeEachStore('OpenTelemetry traces of runtimes', (factory) => {
  test('a world turn: run → nodes → chat and source spans, world and turn ids', async () =>
    factory.withStore(async ({ store }) => {
      const kit = await startParkKit(store);
      const saved = { ...process.env };
      Object.assign(process.env, kit.env);
      const receiver = await startOtlpReceiver();
      const http = await serve(store, receiver);
      try {
        await kit.world('park');
        const post = await call(`${http.url}/worlds/park/turns`, 'POST', {}, { traceparent });
        assert.equal(post.status, 201, post.text);
        await http.close();
        const run = runOf(receiver.spans, 'world_turn');
        assert.equal(run.name, 'noema.world.turn');
        assert.equal(run.attributes['noema.run.status'], 'completed');
        assert.equal(run.attributes['noema.world_slug'], 'park');
        assert.equal(run.attributes['noema.attempted_turn'], 1);
        assert.equal(typeof run.attributes['noema.attempt_id'], 'string');
        const nodes = receiver.spans.filter(
          (s) => s.parentSpanId === run.spanId && s.name.startsWith('noema.node'),
        );
        assert.ok(nodes.length > 0, 'node spans under the run');
        const chats = receiver.spans.filter((s) => s.attributes['gen_ai.operation.name'] === 'chat');
        assert.ok(chats.length > 0, 'chat spans');
        for (const c of chats) {
          assert.ok(nodes.some((n) => n.spanId === c.parentSpanId) || c.parentSpanId === run.spanId);
          assert.equal(c.attributes['noema.world_slug'], 'park');
          assert.equal(c.attributes['noema.attempted_turn'], 1);
          assert.equal(typeof c.attributes['gen_ai.usage.input_tokens'], 'number');
        }
        const ambient = receiver.spans.filter((s) => s.attributes['noema.source.interface'] === 'http_json');
        assert.ok(ambient.length > 0, 'the HTTP JSON source calls have spans');
      } finally {
        await http.close().catch(() => {});
        await receiver.close();
        await kit.close();
        process.env = saved;
      }
    }));

  test('a world turn run through MCP over HTTP is a child of the MCP request’s traceparent', async () =>
    factory.withStore(async ({ store }) => {
      const kit = await startParkKit(store);
      const saved = { ...process.env };
      Object.assign(process.env, kit.env);
      const receiver = await startOtlpReceiver();
      const http = await serve(store, receiver);
      const client = new Client({ name: 'noema-otel-test', version: '1.0.0' });
      try {
        await kit.world('park');
        await client.connect(
          new StreamableHTTPClientTransport(new URL(`${http.url}/mcp/world`), {
            requestInit: { headers: { authorization: `Bearer ${TOKEN}`, traceparent } },
          }),
        );
        const r = await client.callTool({ name: 'run_turn', arguments: { world_slug: 'park' } });
        assert.equal((r.structuredContent as { status: string }).status, 'committed');
        await client.close();
        await http.close();
        const run = runOf(receiver.spans, 'world_turn');
        assert.equal(run.attributes['noema.world_slug'], 'park');
      } finally {
        await client.close().catch(() => {});
        await http.close().catch(() => {});
        await receiver.close();
        await kit.close();
        process.env = saved;
      }
    }));

  test('an agent message with a tool call: invoke_agent → chat and execute_tool spans', async () =>
    factory.withStore(async ({ store }) => {
      const model = await startScriptedModel({ script: loadScript(CALCULATOR_SCRIPT_PATH) });
      const mcp = await startFixtureHttpServer();
      const proxy = await recordingProxy(mcp.url);
      const saved = { ...process.env };
      Object.assign(process.env, {
        NOEMA_LLM_BASE_URL: model.url,
        NOEMA_LLM_MODEL: 'scripted-1',
        OTEL_AGENT_MCP_URL: proxy.url,
      });
      const receiver = await startOtlpReceiver();
      const http = await serve(store, receiver);
      try {
        const llm = await putResponseSource(store, {
          version: 1,
          interface: { name: 'llm_chat_completions', model: '@chat', schema_delivery: 'response_format' },
        });
        const server = await putMcpServer(store, {
          version: 1,
          transport: { type: 'streamable_http', url_env: 'OTEL_AGENT_MCP_URL' },
        });
        assert.equal(
          (await call(`${http.url}/agents`, 'POST', calculatorDefinition(llm.hash, server.hash))).status,
          201,
        );
        const session = await call(`${http.url}/sessions`, 'POST', {
          agent_label: 'calculator',
          user_id: 'ada',
        });
        const sid = JSON.parse(session.text).session_id as string;
        const turn = await call(
          `${http.url}/sessions/${sid}/messages`,
          'POST',
          { content: 'please add 2 and 3' },
          {
            traceparent,
          },
        );
        assert.equal(turn.status, 200);
        assert.match(turn.text, /2 \+ 3 = 5/);
        await http.close();
        runOf(receiver.spans, 'agent_message');
        const inRun = receiver.spans.filter((s) => s.traceId === TRACE);
        const tools = inRun.filter((s) => s.attributes['gen_ai.operation.name'] === 'execute_tool');
        assert.equal(tools.length, 1, 'one tool call');
        assert.equal(tools[0]!.name, 'execute_tool add');
        assert.equal(tools[0]!.attributes['gen_ai.tool.name'], 'add');
        assert.equal(tools[0]!.attributes['noema.invocation_kind'], 'agent_tool_call');
        assert.equal(tools[0]!.attributes['gen_ai.tool.call.arguments'], undefined, 'no content by default');
        // The message's run (the one that called the tool): invoke_agent, with its chat spans.
        const run_id = tools[0]!.attributes['noema.run_id'];
        const run = inRun.find(
          (s) => s.attributes['noema.run.kind'] && s.attributes['noema.run_id'] === run_id,
        )!;
        assert.equal(run.name, 'invoke_agent');
        assert.equal(run.attributes['gen_ai.operation.name'], 'invoke_agent');
        assert.equal(run.attributes['noema.run.status'], 'completed');
        assert.equal(run.attributes['noema.session_id'], sid);
        const chats = inRun.filter(
          (s) => s.attributes['gen_ai.operation.name'] === 'chat' && s.attributes['noema.run_id'] === run_id,
        );
        assert.ok(chats.length >= 2, 'a chat span per model call of the message');
        for (const c of chats) assert.equal(c.attributes['gen_ai.request.model'], 'scripted-1');
        const nodeIds = new Set(inRun.filter((s) => s.name.startsWith('noema.node')).map((s) => s.spanId));
        assert.ok(nodeIds.has(tools[0]!.parentSpanId) || tools[0]!.parentSpanId === run.spanId);
        // Outgoing model requests carried the trace.
        assert.ok(
          model.requests.every((r) => String(r.headers.traceparent ?? '').startsWith(`00-${TRACE}-`)),
        );
        // The MCP tool call's request carried the tool span's own traceparent.
        assert.ok(
          proxy.seen.includes(`00-${TRACE}-${tools[0]!.spanId}-01`),
          `MCP requests carried the tool span's traceparent: ${JSON.stringify(proxy.seen)}`,
        );
      } finally {
        await http.close().catch(() => {});
        await receiver.close();
        await model.close();
        await proxy.close();
        await mcp.close();
        process.env = saved;
      }
    }));
});
