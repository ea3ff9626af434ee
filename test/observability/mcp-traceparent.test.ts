// An MCP tool call over streamable HTTP carries its invocation span's traceparent (the MCP
// connection is shared, so the header is set per request); on both stores.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startFixtureHttpServer } from '../../src/dev/mcp-fixture-server.ts';
import { startObservability } from '../../src/observability/index.ts';
import { invokeSource, putMcpServer, putResponseSource } from '../../src/sources/index.ts';
import { describeEachStore } from '../../src/testing/each-store.ts';
import { startOtlpReceiver } from './otlp-receiver.ts';
import { recordingProxy } from './recording-proxy.ts';

describeEachStore('traceparent out on MCP', (factory) => {
  test('each MCP tool call names its own span', async () =>
    factory.withStore(async ({ store }) => {
      const receiver = await startOtlpReceiver();
      const mcp = await startFixtureHttpServer();
      const proxy = await recordingProxy(mcp.url);
      const observability = await startObservability({
        env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' },
        store,
        metrics: false,
      });
      try {
        const server = await putMcpServer(store, {
          version: 1,
          transport: { type: 'streamable_http', url_env: 'OTEL_MCP_TEST_URL' },
        });
        const source = await putResponseSource(store, {
          version: 1,
          interface: {
            name: 'mcp_tool',
            server_ref: { hash: server.hash },
            tool_name: 'add',
            timeout_ms: 10_000,
          },
        });
        const ids: string[] = [];
        for (const [a, b] of [
          [2, 3],
          [4, 5],
        ]) {
          const out = await invokeSource(store, {
            source,
            request: { a, b },
            kind: 'manual',
            env: { OTEL_MCP_TEST_URL: proxy.url },
          });
          assert.equal(out.ok, true, out.error?.message);
          ids.push(out.source_invocation_id);
        }
        await observability.flush(3_000);
        for (const id of ids) {
          const span = receiver.spans.find((s) => s.attributes['noema.source_invocation_id'] === id);
          assert.ok(span, 'the call is traced');
          assert.equal(span!.attributes['gen_ai.operation.name'], 'execute_tool');
          assert.equal(span!.attributes['gen_ai.tool.name'], 'add');
          assert.ok(
            proxy.seen.includes(`00-${span!.traceId}-${span!.spanId}-01`),
            `a request carried ${span!.spanId}: ${JSON.stringify(proxy.seen)}`,
          );
        }
      } finally {
        await observability.shutdown(1_000);
        await proxy.close();
        await mcp.close();
        await receiver.close();
      }
    }));
});
