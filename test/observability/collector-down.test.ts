// Export never blocks or fails a run: with the collector down, runs complete as fast as without
// tracing, the lost spans are counted and logged once for the incident, and shutdown returns within
// its bound; on both stores.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { setImmediate, setTimeout as sleep } from 'node:timers/promises';
import { startObservability } from '../../src/observability/index.ts';
import { createFlowchart, createFlowRun } from '../../src/runtimes/flow/index.ts';
import { describeEachStore } from '../../src/testing/each-store.ts';
import { EXAMPLE, EXAMPLE_SCRIPT, flowKit, readJson } from '../../src/testing/flow-kit.ts';
import { startOtlpReceiver } from './otlp-receiver.ts';

/** A port nothing listens on (bound, then closed). */
async function deadPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

function exportWarnings(): { count(): number; stop(): void } {
  const seen: string[] = [];
  const on = (w: Error & { code?: string }) => {
    if (w.code === 'NOEMA_OTEL_EXPORT_FAILED') seen.push(w.message);
  };
  process.on('warning', on);
  return { count: () => seen.length, stop: () => process.off('warning', on) };
}

describeEachStore('collector down', (factory) => {
  test('runs complete, lost spans are counted and logged once, shutdown is bounded', async () =>
    factory.withStore(async ({ store }) => {
      const warnings = exportWarnings();
      const observability = await startObservability({
        env: {
          OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${await deadPort()}`,
          OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        },
        store,
        metrics: false,
      });
      const kit = await flowKit(store, readJson(EXAMPLE_SCRIPT));
      try {
        const fc = await createFlowchart(store, readJson(EXAMPLE));
        for (let i = 0; i < 3; i++) {
          const run = await createFlowRun(store, kit.engine, fc.flowchart_id, { input: { message: 'jam' } });
          const outcome = await kit.engine.continueRun(run.flowchart_run_id);
          assert.equal(outcome.status, 'completed', 'the run is not affected');
          await observability.flush(200);
        }
        // The exporter is retrying the refused connection with backoff: shutdown does not wait for it.
        const started = Date.now();
        await observability.shutdown(1_000);
        assert.ok(Date.now() - started < 2_500, `shutdown within its bound (${Date.now() - started} ms)`);
        // Then it gives the batches up, and they are counted.
        for (let i = 0; i < 300 && observability.droppedSpans() === 0; i++) await sleep(100);
        assert.ok(observability.droppedSpans() > 0, 'the lost spans are counted');
        await setImmediate();
        assert.equal(warnings.count(), 1, 'one warning for the incident, not one per batch');
      } finally {
        warnings.stop();
        await observability.shutdown(0);
        await kit.close();
      }
    }));

  test('a collector that comes back ends the incident: the next outage is logged again', async () =>
    factory.withStore(async ({ store }) => {
      const receiver = await startOtlpReceiver();
      const warnings = exportWarnings();
      const observability = await startObservability({
        env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' },
        store,
        metrics: false,
      });
      const kit = await flowKit(store, readJson(EXAMPLE_SCRIPT));
      try {
        const fc = await createFlowchart(store, readJson(EXAMPLE));
        const runOnce = async () => {
          const run = await createFlowRun(store, kit.engine, fc.flowchart_id, { input: { message: 'jam' } });
          assert.equal((await kit.engine.continueRun(run.flowchart_run_id)).status, 'completed');
          await observability.flush(1_000);
        };
        receiver.failWith(400);
        await runOnce();
        await runOnce();
        assert.equal(warnings.count(), 1, 'one incident so far');
        receiver.failWith(null);
        await runOnce();
        assert.ok(receiver.spans.length > 0, 'exported again');
        receiver.failWith(400);
        await runOnce();
        await setImmediate(); // warnings are emitted on the next tick
        assert.equal(warnings.count(), 2, 'a new incident is logged');
      } finally {
        warnings.stop();
        await observability.shutdown(1_000);
        await kit.close();
        await receiver.close();
      }
    }));
});
