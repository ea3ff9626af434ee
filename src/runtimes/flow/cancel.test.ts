import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import type { ModelScript } from '../../dev/scripted-model/index.ts';
import { describeEachStore } from '../../testing/each-store.ts';
import { EXAMPLE, EXAMPLE_SCRIPT, flowKit, readJson } from '../../testing/flow-kit.ts';
import { waitUntil } from '../../testing/wait.ts';
import { cancelFlowRun, createFlowchart, createFlowRun, getFlowRun } from './index.ts';

const WORKER = fileURLToPath(new URL('../../testing/flow-worker.ts', import.meta.url));

/** The example's script with its first memory call answered by `reply`. */
function scriptWithMemoryCall(reply: ModelScript['rules'][number]['reply']): ModelScript {
  const base = readJson(EXAMPLE_SCRIPT) as ModelScript;
  return {
    rules: [{ match: { any_message_contains: 'store in long-term memory' }, times: 1, reply }, ...base.rules],
  };
}

describeEachStore('flowchart run cancel', (factory) => {
  test('cancelling a run whose process died ends every node run, the interrupted one cancelled', async () =>
    factory.withStore(async ({ store, url }) => {
      const kit = await flowKit(store, scriptWithMemoryCall({ hang: true }));
      try {
        const fc = await createFlowchart(store, readJson(EXAMPLE));
        const child = spawn(process.execPath, [WORKER, 'run', fc.flowchart_id, '{"message":"jam"}'], {
          env: { ...process.env, NOEMA_DB: url, ...kit.env },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let out = '';
        child.stdout.on('data', (d) => {
          out += d;
        });
        const exited = new Promise((r) => child.on('exit', r));
        await waitUntil('the memory call in flight', () => kit.model.requests.length >= 2, {
          timeoutMs: 20_000,
        });
        child.kill('SIGKILL');
        await exited;
        const runId = (JSON.parse(out.split('\n')[0]!) as { flowchart_run_id: string }).flowchart_run_id;
        assert.equal((await getFlowRun(store, kit.engine, runId)).status, 'running');

        const view = await cancelFlowRun(store, kit.engine, runId);
        assert.equal(view.status, 'cancelled');
        assert.deepEqual(
          view.node_runs.map((n) => [n.flowchart_node_id, n.status]),
          [
            ['start', 'succeeded'],
            ['summarize', 'succeeded'],
            ['remember', 'cancelled'],
          ],
        );
        const remember = view.node_runs[2]!;
        assert.equal(remember.error?.code, 'RUN_CANCELLED');
        assert.ok(remember.finished_at !== null && remember.duration_ms !== null);
        assert.equal(view.node_runs.filter((n) => n.status === 'running').length, 0);
      } finally {
        await kit.close();
      }
    }));

  test('a node still executing when its run is cancelled leaves its node run cancelled and writes nothing', async () =>
    factory.withStore(async ({ store }) => {
      const kit = await flowKit(store, scriptWithMemoryCall({ json: { content: 'jam' }, delay_ms: 400 }));
      try {
        const fc = await createFlowchart(store, readJson(EXAMPLE));
        const { flowchart_run_id } = await createFlowRun(store, kit.engine, fc.flowchart_id, {
          input: { message: 'jam' },
        });
        const running = kit.engine.continueRun(flowchart_run_id);
        await waitUntil(
          'the remember node running',
          async () =>
            (await getFlowRun(store, kit.engine, flowchart_run_id)).node_runs.some(
              (n) => n.flowchart_node_id === 'remember',
            ),
          { timeoutMs: 20_000 },
        );
        await cancelFlowRun(store, kit.engine, flowchart_run_id);
        const outcome = await running;
        assert.notEqual(outcome.status, 'completed');
        await sleep(50);
        const view = await getFlowRun(store, kit.engine, flowchart_run_id);
        assert.equal(view.status, 'cancelled');
        const remember = view.node_runs.find((n) => n.flowchart_node_id === 'remember')!;
        assert.equal(remember.status, 'cancelled', 'the late outcome does not reopen it');
        assert.equal(view.node_runs.filter((n) => n.status === 'running').length, 0);
        const memories = await store.get<{ n: number }>('SELECT COUNT(*) AS n FROM long_term_memories');
        assert.equal(Number(memories?.n), 0, "the node's memory write rolled back");
        const artifacts = await store.get<{ n: number }>(
          'SELECT COUNT(*) AS n FROM node_artifacts WHERE node_run_id = ?',
          [remember.node_run_id],
        );
        assert.equal(Number(artifacts?.n), 0);
      } finally {
        await kit.close();
      }
    }));
});
