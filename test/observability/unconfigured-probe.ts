// Run as a fresh process by unconfigured.test.ts: starts observability with the environment given as
// JSON in argv[2], makes one real HTTP JSON source call, and prints what was loaded and sent.
import { createServer } from 'node:http';
import { registerHooks } from 'node:module';
import type { AddressInfo } from 'node:net';

const seen: string[] = [];
registerHooks({
  resolve(specifier, context, next) {
    const r = next(specifier, context);
    seen.push(r.url);
    return r;
  },
});

const env = JSON.parse(process.argv[2] ?? '{}') as Record<string, string>;
const { startObservability } = await import('../../src/observability/index.ts');
const { telemetry } = await import('../../src/core/telemetry.ts');
const { invokeSource, putResponseSource } = await import('../../src/sources/index.ts');
const { toySources } = await import('../../src/dev/toys/index.ts');
const { openTestStore } = await import('../../src/testing/stores.ts');

const headers: Array<Record<string, unknown>> = [];
const server = createServer((req, res) => {
  headers.push(req.headers);
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ temperature_f: 70, condition: 'sunny', message: 'ok' }));
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const { store, dispose } = await openTestStore('sqlite');
const rssBefore = process.memoryUsage().rss;
const observability = await startObservability({ env, store, metrics: env.NOEMA_METRICS !== 'off' });
const rssAfter = process.memoryUsage().rss;
// PROBE_TRACE_CONTEXT=false: the source document turns outgoing trace context off.
const source = await putResponseSource(
  store,
  env.PROBE_TRACE_CONTEXT === 'false' ? { ...toySources.weather, trace_context: false } : toySources.weather,
);
const outcome = await invokeSource(store, {
  source,
  request: { turn: 1 },
  kind: 'ambient_context',
  env: { NOEMA_TOY_WEATHER_URL: url },
});
const hooks = telemetry() !== null;
await observability.shutdown(2_000);
await dispose();
server.close();
console.log(
  JSON.stringify({
    ok: outcome.ok,
    tracing: observability.tracing,
    hooks,
    otelModules: seen.filter((u) => u.includes('/@opentelemetry/')).length,
    // prom-client itself loads @opentelemetry/api (for exemplars); the SDK and exporters are what weigh.
    otelSdkModules: seen.filter((u) => u.includes('/@opentelemetry/') && !u.includes('/@opentelemetry/api/'))
      .length,
    promClient: seen.some((u) => u.includes('/prom-client/')),
    traceparent: headers[0]?.traceparent ?? null,
    rssDeltaBytes: rssAfter - rssBefore,
  }),
);
