// OpenTelemetry traces of a flowchart run over the real HTTP surface, exported over OTLP/HTTP to a
// real receiver: the span tree, the GenAI attributes, the Noema ids, traceparent in and out, and
// content capture (off by default, redacted as the durable trace when on), on both stores.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startScriptedModel } from '../../src/dev/scripted-model/index.ts';
import { createFlowEngine } from '../../src/runtimes/flow/index.ts';
import type { Store } from '../../src/store/store.ts';
import { startNoemaHttp } from '../../src/surfaces/http/start.ts';
import { describeEachStore } from '../../src/testing/each-store.ts';
import { EXAMPLE, EXAMPLE_SCRIPT, readJson } from '../../src/testing/flow-kit.ts';
import { testTempDir } from '../../src/testing/temp-dir.ts';
import { type ReceivedSpan, startOtlpReceiver } from './otlp-receiver.ts';

const TOKEN = 'otel-test-token-0123456789';
const SECRET = 'sk-otel-secret-value-0123456789';
const INCOMING_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const INCOMING_SPAN = '00f067aa0ba902b7';

interface Served {
  spans: ReceivedSpan[];
  run_id: string;
  flowchart_id: string;
  modelHeaders: Array<Record<string, unknown>>;
}

/** Runs the example flowchart once over HTTP with `otel` settings; resolves after the server's shutdown flushed. */
async function runFlowchart(
  store: Store,
  otel: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<Served> {
  const receiver = await startOtlpReceiver();
  const model = await startScriptedModel({ script: readJson(EXAMPLE_SCRIPT) });
  // The key is a configured secret: the durable trace redacts it wherever it appears.
  const llmEnv = { NOEMA_LLM_BASE_URL: model.url, NOEMA_LLM_MODEL: 'scripted', NOEMA_LLM_API_KEY: SECRET };
  const engine = createFlowEngine(store, { env: llmEnv });
  const http = await startNoemaHttp({
    store,
    engine,
    host: '127.0.0.1',
    port: 0,
    portSetting: '--port',
    token: TOKEN,
    dataDir: testTempDir('noema-otel-'),
    env: {
      ...llmEnv,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_SERVICE_NAME: 'noema-under-test',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=test',
      ...otel,
    },
  });
  const call = async (method: string, path: string, body?: unknown, extra: Record<string, string> = {}) => {
    const res = await fetch(`${http.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', ...extra },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    // biome-ignore lint/suspicious/noExplicitAny: fields asserted one by one
    return (await res.json()) as any;
  };
  try {
    const flowchart = await call('POST', '/api/flowcharts', readJson(EXAMPLE));
    const started = await call(
      'POST',
      `/api/flowcharts/${flowchart.flowchart_id}/runs`,
      { input: { message: `the printer jams; my key is ${SECRET}` } },
      headers,
    );
    const runPath = `/api/flowcharts/${flowchart.flowchart_id}/runs/${started.flowchart_run_id}`;
    let view = await call('GET', runPath);
    for (let i = 0; i < 500 && view.item.status !== 'completed' && view.item.status !== 'failed'; i++) {
      await sleep(20);
      view = await call('GET', runPath);
    }
    assert.equal(view.item.status, 'completed');
    const row = await store.get<{ run_id: string }>(
      'SELECT run_id FROM source_invocations WHERE run_id IS NOT NULL ORDER BY started_at LIMIT 1',
    );
    await http.close();
    return {
      spans: receiver.spans,
      run_id: row!.run_id,
      flowchart_id: flowchart.flowchart_id,
      modelHeaders: model.requests.map((r) => r.headers as Record<string, unknown>),
    };
  } finally {
    await http.close().catch(() => {});
    await engine.close();
    await model.close();
    await receiver.close();
  }
}

describeEachStore('OpenTelemetry traces of a flowchart run', (factory) => {
  test('one trace under the incoming traceparent: run → nodes → chat spans with GenAI attributes', async () =>
    factory.withStore(async ({ store }) => {
      const { spans, run_id, flowchart_id, modelHeaders } = await runFlowchart(
        store,
        {},
        { traceparent: `00-${INCOMING_TRACE}-${INCOMING_SPAN}-01` },
      );
      assert.ok(spans.length > 0, 'spans were exported');
      assert.deepEqual(
        [...new Set(spans.map((s) => s.traceId))],
        [INCOMING_TRACE],
        'one trace, the caller’s',
      );
      const runs = spans.filter((s) => s.name === 'noema.flowchart.run');
      assert.equal(runs.length, 1);
      const run = runs[0]!;
      assert.equal(run.parentSpanId, INCOMING_SPAN, 'the incoming traceparent is the run’s parent');
      assert.equal(run.attributes['noema.run_id'], run_id);
      assert.equal(run.attributes['noema.run.kind'], 'flowchart_run');
      assert.equal(run.attributes['noema.flowchart_id'], flowchart_id);
      assert.equal(run.attributes['noema.run.status'], 'completed');
      assert.equal(run.resource['service.name'], 'noema-under-test');
      assert.equal(run.resource['deployment.environment.name'], 'test');

      const nodes = spans.filter((s) => s.name.startsWith('noema.node '));
      assert.ok(nodes.length >= 5, `a span per node execution (${nodes.length})`);
      for (const n of nodes) {
        assert.equal(n.parentSpanId, run.spanId, `${n.name} is a child of the run`);
        assert.ok(n.start >= run.start && n.end <= run.end, `${n.name} lies within the run`);
      }
      const summarize = nodes.find((n) => n.attributes['noema.node_id'] === 'summarize');
      assert.ok(summarize, 'the summarize node has a span');

      const chats = spans.filter((s) => s.attributes['gen_ai.operation.name'] === 'chat');
      assert.ok(chats.length >= 3, `a chat span per LLM call (${chats.length})`);
      const first = chats.find((c) => c.parentSpanId === summarize!.spanId);
      assert.ok(first, 'the summarize call is a child of its node');
      assert.equal(first!.name, 'chat scripted');
      assert.equal(first!.kind, 3, 'CLIENT');
      assert.equal(first!.attributes['gen_ai.request.model'], 'scripted');
      assert.equal(first!.attributes['gen_ai.response.model'], 'scripted');
      assert.equal(first!.attributes['gen_ai.provider.name'], '127.0.0.1');
      assert.equal(first!.attributes['gen_ai.usage.input_tokens'], 10);
      assert.ok(Number(first!.attributes['gen_ai.usage.output_tokens']) > 0);
      assert.deepEqual(first!.attributes['gen_ai.response.finish_reasons'], ['stop']);
      assert.equal(first!.attributes['noema.run_id'], run_id);
      assert.equal(first!.attributes['noema.invocation_kind'], 'flow_node');
      assert.equal(first!.attributes['noema.workflow_node_id'], 'summarize');
      for (const c of chats) {
        assert.equal(c.attributes['gen_ai.input.messages'], undefined, 'no content by default');
        assert.equal(c.attributes['gen_ai.output.messages'], undefined, 'no content by default');
        // The span starts when the durable running row says the call started, and ends with it.
        const id = String(c.attributes['noema.source_invocation_id']);
        const rec = await store.get<{ started_at: number; ended_at: number }>(
          'SELECT started_at, ended_at FROM source_invocations WHERE source_invocation_id = ?',
          [id],
        );
        assert.equal(c.start, Number(rec!.started_at), 'span start = durable started_at');
        assert.equal(c.end, Number(rec!.ended_at), 'span end = durable ended_at');
      }
      // Outgoing: each model request carried the traceparent of its own chat span.
      const sent = modelHeaders.map((h) => h.traceparent);
      for (const c of chats) assert.ok(sent.includes(`00-${INCOMING_TRACE}-${c.spanId}-01`), c.name);
    }));

  test('content capture: off by default, and when on redacted exactly as the durable trace', async () =>
    factory.withStore(async ({ store }) => {
      const { spans } = await runFlowchart(store, {
        OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true',
      });
      const chats = spans.filter((s) => s.attributes['gen_ai.operation.name'] === 'chat');
      assert.ok(chats.length > 0);
      for (const c of chats) {
        const input = String(c.attributes['gen_ai.input.messages']);
        const output = String(c.attributes['gen_ai.output.messages']);
        assert.ok(!input.includes(SECRET) && !output.includes(SECRET), 'the secret never leaves');
        const id = String(c.attributes['noema.source_invocation_id']);
        const rec = await store.get<{ request_json: string }>(
          'SELECT request_json FROM source_invocations WHERE source_invocation_id = ?',
          [id],
        );
        const stored = JSON.parse(rec!.request_json) as {
          messages: Array<{ role: string; content: string }>;
        };
        const captured = JSON.parse(input) as Array<{ role: string; parts: Array<{ content: string }> }>;
        assert.deepEqual(
          captured.map((m) => [m.role, m.parts[0]!.content]),
          stored.messages.map((m) => [m.role, m.content]),
          'the captured prompt is the durable (redacted) one',
        );
      }
      const summarize = chats.find((c) => c.attributes['noema.workflow_node_id'] === 'summarize')!;
      assert.match(String(summarize.attributes['gen_ai.input.messages']), /REDACTED/);
      assert.match(String(summarize.attributes['gen_ai.output.messages']), /printer jams/);
    }));
});
