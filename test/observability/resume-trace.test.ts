// A run killed with SIGKILL mid-call and finished by another process continues its trace: the
// second process reads the trace context stored with the run (the caller's traceparent) and its
// spans join the same trace under the same run span; on both stores.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { startScriptedModel } from '../../src/dev/scripted-model/index.ts';
import { createFlowchart } from '../../src/runtimes/flow/index.ts';
import { describeEachStore } from '../../src/testing/each-store.ts';
import { EXAMPLE, EXAMPLE_SCRIPT, readJson } from '../../src/testing/flow-kit.ts';
import { startOtlpReceiver } from './otlp-receiver.ts';

const WORKER = fileURLToPath(new URL('./trace-worker.ts', import.meta.url));
const TRACE = 'c0ffee00c0ffee00c0ffee00c0ffee00';
const PARENT = 'feedfacefeedface';

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.on('exit', (code) => resolve(code)));
}

describeEachStore('trace resumption', (factory) => {
  test('a run resumed after kill -9 by another process continues the same trace', async () =>
    factory.withStore(async ({ store, url }) => {
      const script = readJson(EXAMPLE_SCRIPT);
      // The first summarize call hangs: the first process is killed while it waits for the model.
      script.rules.unshift({
        match: { any_message_contains: "Summarize the customer's message" },
        times: 1,
        reply: { hang: true },
      });
      const model = await startScriptedModel({ script });
      const receiver = await startOtlpReceiver();
      const env = {
        ...process.env,
        NOEMA_DB: url,
        NOEMA_LLM_BASE_URL: model.url,
        NOEMA_LLM_MODEL: 'scripted',
        FLOW_LEASE_MS: '1000',
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      };
      try {
        const fc = await createFlowchart(store, readJson(EXAMPLE));
        const first = spawn(process.execPath, [WORKER, 'run', fc.flowchart_id, `00-${TRACE}-${PARENT}-01`], {
          env,
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        const firstExit = exited(first);
        let out = '';
        first.stdout!.on('data', (c: Buffer) => (out += c.toString()));
        // Bounded generously: on a loaded machine the worker may take many seconds to start.
        const deadline = Date.now() + 60_000;
        while (model.requests.length === 0 && Date.now() < deadline) await sleep(20);
        assert.equal(model.requests.length, 1, 'the first process reached the model');
        first.kill('SIGKILL');
        await firstExit;
        const runId = (JSON.parse(out.split('\n')[0]!) as { flowchart_run_id: string }).flowchart_run_id;
        const run_id = (await store.get<{ run_id: string }>(
          'SELECT run_id FROM source_invocations ORDER BY started_at LIMIT 1',
        ))!.run_id;
        assert.ok(runId);
        assert.equal(
          (
            await store.get<{ traceparent: string }>(
              'SELECT traceparent FROM run_trace_contexts WHERE run_id = ?',
              [run_id],
            )
          )?.traceparent,
          `00-${TRACE}-${PARENT}-01`,
          'the trace context is stored with the run',
        );
        const before = receiver.spans.length;

        const second = spawn(process.execPath, [WORKER, 'drain'], {
          env,
          stdio: ['ignore', 'ignore', 'inherit'],
        });
        assert.equal(await exited(second), 0);
        const resumed = receiver.spans.slice(before);
        assert.ok(resumed.length > 0, 'the second process exported spans');
        assert.deepEqual([...new Set(resumed.map((s) => s.traceId))], [TRACE], 'the same trace');
        const run = resumed.find((s) => s.name === 'noema.flowchart.run');
        assert.ok(run, 'the run span, ended by the process that finished the run');
        assert.equal(run!.parentSpanId, PARENT, 'still under the caller’s span');
        assert.equal(run!.attributes['noema.run_id'], run_id);
        const row = (await store.get<{ created_at: number; status: string }>(
          'SELECT created_at, status FROM engine_runs WHERE run_id = ?',
          [run_id],
        ))!;
        assert.equal(run!.attributes['noema.run.status'], row.status, 'the run span says how the run ended');
        const createdAt = row.created_at;
        assert.ok(run!.start <= Number(createdAt), 'the run span starts when the run was created');
        for (const s of resumed.filter((x) => x.name.startsWith('noema.node')))
          assert.equal(s.parentSpanId, run!.spanId, `${s.name} under the same run span`);
        assert.ok(
          resumed.some((s) => s.name.startsWith('noema.node')),
          'the second process traced the node it executed',
        );
        // The call the first process lost: reported by the recovery that marked it interrupted.
        const lost = (await store.get<{ source_invocation_id: string; started_at: number; ended_at: number }>(
          "SELECT source_invocation_id, started_at, ended_at FROM source_invocations WHERE status = 'interrupted'",
        ))!;
        assert.ok(lost, 'the hung call was marked interrupted');
        const lostSpan = resumed.find(
          (s) => s.attributes['noema.source_invocation_id'] === lost.source_invocation_id,
        );
        assert.ok(lostSpan, 'the lost call has a span');
        assert.equal(lostSpan!.attributes['error.type'], 'interrupted');
        assert.equal(lostSpan!.attributes['gen_ai.operation.name'], 'chat');
        assert.equal(lostSpan!.start, Number(lost.started_at));
        assert.equal(lostSpan!.end, Number(lost.ended_at));
        assert.equal(lostSpan!.traceId, TRACE);
        // Spans the first process exported before it died belong to the same trace and run span.
        for (const s of receiver.spans.slice(0, before)) assert.equal(s.traceId, TRACE);
      } finally {
        await receiver.close();
        await model.close();
      }
    }));
});
