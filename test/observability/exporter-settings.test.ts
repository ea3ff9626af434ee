// The OTLP exporter's own standard variables: OTEL_EXPORTER_OTLP_(TRACES_)COMPRESSION sends each
// export gzip-compressed, and OTEL_EXPORTER_OTLP_(TRACES_)TIMEOUT gives up an export the collector
// does not answer in time (its spans counted as dropped); a value Noema cannot use is a one-line
// CONFIG_INVALID naming the variable.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { traceSettings } from '../../src/observability/settings.ts';
import { startSpanExport } from '../../src/observability/span-export.ts';
import { numberedSpan, startOtlpReceiver } from './otlp-receiver.ts';

const ENDPOINT = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' };

test('timeout and compression: the defaults, the traces variable over the general one, bad values named', () => {
  const plain = traceSettings(ENDPOINT)!;
  assert.equal(plain.timeoutMillis, 10_000);
  assert.equal(plain.compression, 'none');
  const general = traceSettings({
    ...ENDPOINT,
    OTEL_EXPORTER_OTLP_TIMEOUT: '2500',
    OTEL_EXPORTER_OTLP_COMPRESSION: 'gzip',
  })!;
  assert.equal(general.timeoutMillis, 2500);
  assert.equal(general.compression, 'gzip');
  const traces = traceSettings({
    ...ENDPOINT,
    OTEL_EXPORTER_OTLP_TIMEOUT: '2500',
    OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: '700',
    OTEL_EXPORTER_OTLP_COMPRESSION: 'gzip',
    OTEL_EXPORTER_OTLP_TRACES_COMPRESSION: 'none',
  })!;
  assert.equal(traces.timeoutMillis, 700);
  assert.equal(traces.compression, 'none');
  for (const [variable, value] of [
    ['OTEL_EXPORTER_OTLP_TIMEOUT', 'soon'],
    ['OTEL_EXPORTER_OTLP_TRACES_TIMEOUT', '0'],
    ['OTEL_EXPORTER_OTLP_TIMEOUT', '1.5'],
    ['OTEL_EXPORTER_OTLP_COMPRESSION', 'zstd'],
    ['OTEL_EXPORTER_OTLP_TRACES_COMPRESSION', 'deflate'],
  ] as const) {
    assert.throws(
      () => traceSettings({ ...ENDPOINT, [variable]: value }),
      (err: { code?: string; message?: string; details?: { variable?: string } }) =>
        err.code === 'CONFIG_INVALID' &&
        err.details?.variable === variable &&
        err.message?.startsWith(variable) === true &&
        !err.message.includes('\n'),
      `${variable}=${value}`,
    );
  }
});

for (const protocol of ['http/protobuf', 'http/json'] as const) {
  test(`OTEL_EXPORTER_OTLP_COMPRESSION=gzip sends ${protocol} exports gzip-compressed; unset, plain`, async () => {
    const receiver = await startOtlpReceiver();
    try {
      for (const compression of ['gzip', undefined]) {
        const spans = await startSpanExport(
          traceSettings({
            OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
            OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
            ...(compression ? { OTEL_EXPORTER_OTLP_COMPRESSION: compression } : {}),
          })!,
        );
        const before = receiver.requests.length;
        try {
          for (let i = 0; i < 3; i++) spans.emit(numberedSpan(i));
          await spans.flush(5_000);
        } finally {
          await spans.shutdown(1_000);
        }
        const sent = receiver.requests.slice(before);
        assert.ok(sent.length > 0, 'an export was sent');
        for (const r of sent) assert.equal(r.headers['content-encoding'], compression, `${compression}`);
        assert.equal(spans.dropped(), 0);
      }
      // Both exports decoded whole (the receiver gunzips what says it is gzip).
      assert.deepEqual(
        receiver.spans.map((s) => `${s.name}:${s.attributes['noema.step']}`),
        ['s0:0', 's1:1', 's2:2', 's0:0', 's1:1', 's2:2'],
      );
    } finally {
      await receiver.close();
    }
  });
}

test('OTEL_EXPORTER_OTLP_TIMEOUT gives up an export the collector does not answer, and counts its spans', async () => {
  const receiver = await startOtlpReceiver();
  receiver.hang(true);
  const settings = (timeout?: string) =>
    traceSettings({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_BSP_SCHEDULE_DELAY: '10',
      ...(timeout ? { OTEL_EXPORTER_OTLP_TIMEOUT: timeout } : {}),
    })!;
  const short = await startSpanExport(settings('200'));
  const long = await startSpanExport(settings());
  try {
    for (let i = 0; i < 2; i++) {
      short.emit(numberedSpan(i));
      long.emit(numberedSpan(i));
    }
    const until = Date.now() + 5_000;
    // Both exports reach the collector (each exporter's thread starts on its own, later under load).
    while ((short.dropped() < 2 || receiver.requests.length < 2) && Date.now() < until) await delay(20);
    assert.equal(short.dropped(), 2, 'given up after 200 ms: both spans dropped');
    assert.equal(long.dropped(), 0, 'the default 10 s has not run out');
    assert.ok(receiver.requests.length >= 2, 'both sent their export');
  } finally {
    receiver.hang(false);
    await short.shutdown(1_000);
    await long.shutdown(1_000);
    await receiver.close();
  }
});
