import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { describeEachStore } from '../../testing/each-store.ts';
import { EXAMPLE, EXAMPLE_SCRIPT, flowKit, readJson } from '../../testing/flow-kit.ts';
import { createFlowchart, createFlowRun, type FlowEvent, subscribeFlowRun } from './index.ts';

const WORKER = fileURLToPath(new URL('../../testing/flow-worker.ts', import.meta.url));

describeEachStore('flowchart events across processes', (factory) => {
  test('a run executed by another process reaches a subscriber with all three events, whole', async (t) =>
    factory.withStore(async ({ store, url }) => {
      if (!store.capabilities.supportsListenNotify) {
        t.skip('this store delivers events in-process only (no LISTEN/NOTIFY)');
        return;
      }
      const kit = await flowKit(store, readJson(EXAMPLE_SCRIPT));
      try {
        const fc = await createFlowchart(store, readJson(EXAMPLE));
        const created = await createFlowRun(store, kit.engine, fc.flowchart_id, {
          input: { message: 'jam' },
        });
        const events: FlowEvent[] = [];
        const unsub = await subscribeFlowRun(kit.engine, store, created, (e) => events.push(e));
        const child = spawn(process.execPath, [WORKER, 'drain'], {
          env: { ...process.env, NOEMA_DB: url, ...kit.env },
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        const exited = new Promise((r) => child.on('exit', r));
        const done = () =>
          events.some((e) => e.event === 'flowchart.run.updated' && e.status === 'completed');
        for (let i = 0; i < 500 && !done(); i++) await sleep(20);
        child.kill('SIGTERM');
        await exited;
        await unsub();
        assert.ok(done(), 'the completion reached this process');
        const finished = events.filter(
          (e) => e.event === 'flowchart.node.updated' && e.status === 'succeeded',
        );
        assert.equal(finished.length, 8);
        const arts = events.filter((e) => e.event === 'flowchart:node_artifact:persisted');
        assert.equal(arts.length, 5);
        for (const a of arts)
          assert.ok(a.event === 'flowchart:node_artifact:persisted' && a.artifact.payload !== null);
      } finally {
        await kit.close();
      }
    }));
});
