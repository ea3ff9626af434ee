// The batch span processor takes its queue and batch sizes and its schedule from the standard
// OTEL_BSP_* variables: a queue bound of 3 drops the spans past it while a batch is in flight.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { traceSettings } from '../../src/observability/settings.ts';
import { startSpanExport } from '../../src/observability/span-export.ts';
import { numberedSpan, startOtlpReceiver } from './otlp-receiver.ts';

test('OTEL_BSP_* sizes bound the queue and the batch; the defaults are the specification’s', () => {
  const s = traceSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' })!;
  assert.deepEqual(s.batch, {
    scheduledDelayMillis: 5000,
    maxQueueSize: 2048,
    maxExportBatchSize: 512,
    exportTimeoutMillis: 30000,
  });
  for (const [variable, value] of [
    ['OTEL_BSP_SCHEDULE_DELAY', 'soon'],
    ['OTEL_BSP_MAX_QUEUE_SIZE', '0'],
    ['OTEL_BSP_MAX_EXPORT_BATCH_SIZE', '4096'],
    ['OTEL_BSP_EXPORT_TIMEOUT', '1.5'],
  ] as const) {
    assert.throws(
      () => traceSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', [variable]: value }),
      (err: { code?: string; details?: { variable?: string } }) =>
        err.code === 'CONFIG_INVALID' && err.details?.variable === variable,
      variable,
    );
  }
});

test('a queue of OTEL_BSP_MAX_QUEUE_SIZE spans drops the ones past it and counts them', async () => {
  const receiver = await startOtlpReceiver();
  const spans = await startSpanExport(
    traceSettings({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_BSP_MAX_QUEUE_SIZE: '3',
      OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '3',
      OTEL_BSP_SCHEDULE_DELAY: '600000',
    })!,
  );
  try {
    for (let i = 0; i < 5; i++) spans.emit(numberedSpan(i));
    assert.equal(spans.dropped(), 2, 'the three queued are being exported; two more do not fit');
    // The full batch went out as it filled (flush waits for queued spans, not for that export).
    while (receiver.spans.length < 3) await delay(10);
    assert.deepEqual(receiver.spans.map((s) => s.name).sort(), ['s0', 's1', 's2']);
  } finally {
    await spans.shutdown(1_000);
    await receiver.close();
  }
});
