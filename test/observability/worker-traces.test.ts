// `noema worker` exports traces when OTEL_* is set: the flowchart runs another process queued are
// traced by the worker that executes them, one trace per run (its run id); on both stores.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type ModelScript, startScriptedModel } from '../../src/dev/scripted-model/index.ts';
import { describeEachStore } from '../../src/testing/each-store.ts';
import { EXAMPLE_SCRIPT, readJson } from '../../src/testing/flow-kit.ts';
import { testTempDir } from '../../src/testing/temp-dir.ts';
import { waitUntil } from '../../src/testing/wait.ts';
import {
  queueFlowRuns,
  runStatuses,
  startWorkerCli,
  type WorkerProcess,
} from '../../src/testing/worker-kit.ts';
import { startOtlpReceiver } from './otlp-receiver.ts';

describeEachStore('noema worker traces', (factory) => {
  test('the runs a worker executes are traced, and flushed when it drains', async () =>
    factory.withStore(async ({ store, url }) => {
      const model = await startScriptedModel({ script: readJson(EXAMPLE_SCRIPT) as ModelScript });
      const receiver = await startOtlpReceiver();
      let worker: WorkerProcess | undefined;
      try {
        const ids = await queueFlowRuns(store, 2);
        worker = await startWorkerCli(
          {
            NOEMA_DB: url,
            NOEMA_DATA_DIR: testTempDir('noema-worker-otel-'),
            NOEMA_LLM_BASE_URL: model.url,
            NOEMA_LLM_MODEL: 'scripted',
            NOEMA_RUN_LEASE_MS: '5000',
            NOEMA_RECOVERY_INTERVAL_MS: '100',
            OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
            OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
            OTEL_SERVICE_NAME: 'noema-worker',
          },
          [],
        );
        await waitUntil(
          'both runs completed',
          async () => (await runStatuses(store, ids)).every((s) => s === 'completed'),
          { timeoutMs: 40_000, intervalMs: 100 },
        );
        worker.cli.child.kill('SIGTERM');
        assert.equal(await worker.cli.exited, 0, worker.cli.stderr());
        for (const id of ids) {
          const traceId = id.replaceAll('-', '');
          const spans = receiver.spans.filter((s) => s.traceId === traceId);
          const run = spans.find((s) => s.name === 'noema.flowchart.run');
          assert.ok(run, `run ${id} has its span, in the trace named by its id`);
          assert.equal(run!.parentSpanId, '', 'a root span: nobody asked with a traceparent');
          assert.equal(run!.resource['service.name'], 'noema-worker');
          assert.ok(spans.some((s) => s.attributes['gen_ai.operation.name'] === 'chat'));
        }
      } finally {
        worker?.cli.child.kill('SIGKILL');
        await receiver.close();
        await model.close();
      }
    }));
});
