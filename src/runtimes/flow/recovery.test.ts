import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import type { ModelScript } from '../../dev/scripted-model/index.ts';
import { describeEachStore } from '../../testing/each-store.ts';
import { EXAMPLE, EXAMPLE_SCRIPT, flowKit, readJson } from '../../testing/flow-kit.ts';
import { createFlowchart, getFlowRun } from './index.ts';

const WORKER = fileURLToPath(new URL('../../testing/flow-worker.ts', import.meta.url));

describeEachStore('flowchart run recovery', (factory) => {
  test('a run killed mid-way is finished by another process without repeating completed work', async () =>
    factory.withStore(async ({ store, url }) => {
      const base = readJson(EXAMPLE_SCRIPT) as ModelScript;
      // The first memory call hangs: the worker is killed while it waits.
      const script: ModelScript = {
        rules: [
          { match: { any_message_contains: 'store in long-term memory' }, times: 1, reply: { hang: true } },
          ...base.rules,
        ],
      };
      const kit = await flowKit(store, script, { leaseMs: 400 });
      try {
        const fc = await createFlowchart(store, readJson(EXAMPLE));
        const child = spawn(process.execPath, [WORKER, 'run', fc.flowchart_id, '{"message":"jam"}'], {
          env: { ...process.env, NOEMA_DB: url, FLOW_LEASE_MS: '400', ...kit.env },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let out = '';
        child.stdout.on('data', (d) => {
          out += d;
        });
        const exited = new Promise((r) => child.on('exit', r));
        for (let i = 0; i < 500 && kit.model.requests.length < 2; i++) await sleep(20);
        assert.equal(kit.model.requests.length, 2, 'summarize answered, memory call hanging');
        child.kill('SIGKILL');
        await exited;
        const runId = (JSON.parse(out.split('\n')[0]!) as { flowchart_run_id: string }).flowchart_run_id;
        const before = await getFlowRun(store, kit.engine, runId);
        assert.equal(before.status, 'running');
        assert.deepEqual(
          before.node_runs.map((n) => [n.flowchart_node_id, n.status]),
          [
            ['start', 'succeeded'],
            ['summarize', 'succeeded'],
            ['remember', 'running'],
          ],
        );
        await sleep(500); // the dead worker's lease expires
        const outcome = await kit.engine.claimNext();
        assert.equal(outcome?.run_id, runId);
        assert.equal(outcome?.status, 'completed', JSON.stringify(outcome?.error));
        const after = await getFlowRun(store, kit.engine, runId);
        assert.deepEqual(
          after.node_runs.map((n) => n.flowchart_node_id),
          ['start', 'summarize', 'remember', 'recall', 'plan', 'triaged', 'route', 'escalate'],
          'every node ran once; the interrupted one finished in its same node run',
        );
        assert.ok(after.node_runs.every((n) => n.status === 'succeeded'));
        const summarizeCalls = kit.model.requests.filter((r) =>
          JSON.stringify(r.body).includes("Summarize the customer's message"),
        );
        assert.equal(summarizeCalls.length, 1, 'the completed model call was not repeated');
        const memories = await store.get<{ n: number }>('SELECT COUNT(*) AS n FROM long_term_memories');
        assert.equal(Number(memories?.n), 1);
      } finally {
        await kit.close();
      }
    }));
});
