// Tracing unconfigured costs nothing: no OpenTelemetry module is loaded, no hook is installed, no
// header is added and nothing is sent; OTEL_SDK_DISABLED and OTEL_TRACES_EXPORTER=none turn an
// endpoint off; bad values are CONFIG_INVALID naming the variable.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { traceSettings } from '../../src/observability/index.ts';
import { startOtlpReceiver } from './otlp-receiver.ts';

const PROBE = fileURLToPath(new URL('./unconfigured-probe.ts', import.meta.url));

/** Runs the probe in a fresh process (asynchronously: the receiver in this process must answer it). */
async function probe(env: Record<string, string>) {
  const r = await promisify(execFile)(process.execPath, [PROBE, JSON.stringify(env)], { encoding: 'utf8' });
  return JSON.parse(r.stdout.trim().split('\n').at(-1)!) as {
    ok: boolean;
    tracing: boolean;
    hooks: boolean;
    otelModules: number;
    otelSdkModules: number;
    promClient: boolean;
    traceparent: string | null;
    rssDeltaBytes: number;
  };
}

test('nothing set: no OpenTelemetry module loaded, no hooks, no traceparent sent', async () => {
  const r = await probe({ NOEMA_METRICS: 'off' });
  assert.equal(r.ok, true);
  assert.equal(r.tracing, false);
  assert.equal(r.hooks, false, 'no telemetry hooks installed');
  assert.equal(r.otelModules, 0, 'no @opentelemetry module resolved');
  assert.equal(r.promClient, false);
  assert.equal(r.traceparent, null);
});

test('metrics alone load prom-client but nothing of the OpenTelemetry SDK', async () => {
  const r = await probe({});
  assert.equal(r.hooks, true);
  assert.equal(r.promClient, true);
  assert.equal(r.otelSdkModules, 0, 'prom-client loads @opentelemetry/api only');
  assert.equal(r.traceparent, null, 'no trace context without tracing');
});

test('an endpoint set: the SDK is loaded and outgoing calls carry traceparent', async () => {
  const receiver = await startOtlpReceiver();
  try {
    const r = await probe({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    });
    assert.equal(r.tracing, true);
    assert.ok(r.otelModules > 0);
    assert.match(r.traceparent ?? '', /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    const span = receiver.spans.find((s) => s.attributes['noema.invocation_kind'] === 'ambient_context');
    assert.ok(span, 'the invocation was exported');
    assert.equal(
      r.traceparent,
      `00-${span!.traceId}-${span!.spanId}-01`,
      'the header names the invocation span',
    );
  } finally {
    await receiver.close();
  }
});

test('a source document with "trace_context": false sends no traceparent, traced or not', async () => {
  const receiver = await startOtlpReceiver();
  try {
    const r = await probe({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      NOEMA_METRICS: 'off',
      PROBE_TRACE_CONTEXT: 'false',
    });
    assert.equal(r.tracing, true);
    assert.equal(r.traceparent, null, 'no header');
    assert.ok(
      receiver.spans.some((s) => s.attributes['noema.invocation_kind'] === 'ambient_context'),
      'still traced',
    );
  } finally {
    await receiver.close();
  }
});

test('http/protobuf (the default protocol): the spans reach the collector as OTLP protobuf', async () => {
  const receiver = await startOtlpReceiver();
  try {
    const r = await probe({
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.url}/custom/traces`,
      OTEL_EXPORTER_OTLP_HEADERS: 'x-collector-key=abc%20def',
      NOEMA_METRICS: 'off',
    });
    assert.equal(r.tracing, true);
    const posted = receiver.requests.filter((q) => q.path === '/custom/traces');
    assert.ok(posted.length > 0, 'POSTed to the signal endpoint as it is');
    assert.equal(posted[0]!.headers['content-type'], 'application/x-protobuf');
    assert.equal(posted[0]!.headers['x-collector-key'], 'abc def', 'OTEL_EXPORTER_OTLP_HEADERS sent');
    const body = Buffer.concat(posted.map((q) => q.body));
    const traceId = r.traceparent!.split('-')[1]!;
    assert.ok(body.includes(Buffer.from(traceId, 'hex')), 'the trace id, as protobuf bytes');
    // Decoded as an OTLP ExportTraceServiceRequest (protobufjs): the span is whole.
    const span = receiver.spans.find((s) => s.attributes['noema.invocation_kind'] === 'ambient_context');
    assert.ok(span, 'the invocation span decodes from the protobuf body');
    assert.equal(
      r.traceparent,
      `00-${span!.traceId}-${span!.spanId}-01`,
      'its ids, as the header named them',
    );
    assert.equal(span!.name, 'source http_json');
    assert.equal(span!.kind, 3, 'SPAN_KIND_CLIENT');
    assert.equal(typeof span!.attributes['noema.source_invocation_id'], 'string');
    assert.equal(span!.attributes['noema.source.interface'], 'http_json');
    assert.equal(span!.resource['service.name'], 'noema');
    assert.ok(span!.start > 0 && span!.start <= span!.end, 'start and end from the fixed64 nanoseconds');
  } finally {
    await receiver.close();
  }
});

test('OTEL_TRACES_SAMPLER=always_off: no span is sent, and the traceparent says not sampled', async () => {
  const receiver = await startOtlpReceiver();
  try {
    const r = await probe({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_TRACES_SAMPLER: 'always_off',
      NOEMA_METRICS: 'off',
    });
    assert.equal(r.tracing, true);
    assert.match(r.traceparent ?? '', /^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/);
    assert.equal(receiver.spans.length, 0);
  } finally {
    await receiver.close();
  }
});

test('OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none with an endpoint set: nothing is sent', async () => {
  const receiver = await startOtlpReceiver();
  try {
    const offs: Array<Record<string, string>> = [
      { OTEL_SDK_DISABLED: 'true' },
      { OTEL_TRACES_EXPORTER: 'none' },
    ];
    for (const off of offs) {
      const r = await probe({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, NOEMA_METRICS: 'off', ...off });
      assert.equal(r.tracing, false);
      assert.equal(r.otelModules, 0);
      assert.equal(r.traceparent, null);
    }
    assert.equal(receiver.requests.length, 0, 'the receiver heard nothing');
  } finally {
    await receiver.close();
  }
});

test('the standard variables are read as the specification says; bad values name the variable', () => {
  assert.equal(traceSettings({}), null);
  const s = traceSettings({
    OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/',
    OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20abc,x-team=ai',
    OTEL_RESOURCE_ATTRIBUTES: 'service.name=from-attrs,deployment.environment.name=prod',
    OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
    OTEL_TRACES_SAMPLER_ARG: '0.25',
  })!;
  assert.equal(s.url, 'http://collector:4318/v1/traces', 'the base endpoint gets the signal path');
  assert.equal(s.protocol, 'http/protobuf', 'the default protocol');
  assert.deepEqual(s.headers, { authorization: 'Bearer abc', 'x-team': 'ai' });
  assert.equal(s.resource['service.name'], 'from-attrs');
  assert.deepEqual(s.sampler, { kind: 'parentbased_traceidratio', ratio: 0.25 });
  assert.equal(s.captureContent, false);
  const signal = traceSettings({
    OTEL_EXPORTER_OTLP_ENDPOINT: 'http://ignored:4318',
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://traces.example/custom/path',
    OTEL_SERVICE_NAME: 'named',
  })!;
  assert.equal(signal.url, 'https://traces.example/custom/path', 'the signal endpoint is used as it is');
  assert.equal(signal.resource['service.name'], 'named');
  for (const [variable, value] of [
    ['OTEL_EXPORTER_OTLP_PROTOCOL', 'grpc'],
    ['OTEL_TRACES_SAMPLER', 'sometimes'],
    ['OTEL_EXPORTER_OTLP_HEADERS', 'novalue'],
  ] as const) {
    assert.throws(
      () => traceSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', [variable]: value }),
      (err: { code?: string; details?: { variable?: string } }) =>
        err.code === 'CONFIG_INVALID' && err.details?.variable === variable,
      variable,
    );
  }
  assert.throws(
    () => traceSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }),
    (err: { code?: string }) => err.code === 'CONFIG_INVALID',
  );
});
