import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Store } from '../../store/store.ts';
import { describeEachStore } from '../../testing/each-store.ts';
import { flowKit } from '../../testing/flow-kit.ts';
import {
  createFlowchart,
  listNodeArtifacts,
  runFlowchart,
  startArtifactSweeper,
  sweepNodeArtifacts,
} from './index.ts';

async function milestoneChart(store: Store, retention: Record<string, unknown>) {
  return createFlowchart(store, {
    name: 'retention',
    graph: {
      nodes: [
        { id: 'start', node_type: 'start' },
        { id: 'm', node_type: 'milestone', config: { action: 'create_or_update', ...retention } },
        { id: 'end', node_type: 'end' },
      ],
      edges: [
        { source_node_id: 'start', target_node_id: 'm', edge_mode: 'solid' },
        { source_node_id: 'm', target_node_id: 'end', edge_mode: 'solid' },
      ],
    },
  });
}

describeEachStore('node artifact retention', (factory) => {
  const withClock = async (
    retention: Record<string, unknown>,
    fn: (h: {
      store: Store;
      run: () => Promise<void>;
      advance: (s: number) => void;
      now: () => number;
      ids: () => Promise<number[]>;
    }) => Promise<void>,
  ) =>
    factory.withStore(async ({ store }) => {
      let t = Date.UTC(2030, 0, 1);
      const now = () => t;
      const kit = await flowKit(store, { rules: [] }, { now });
      try {
        const fc = await milestoneChart(store, retention);
        await fn({
          store,
          now,
          advance: (s) => {
            t += s * 1000;
          },
          run: async () => {
            const { outcome } = await runFlowchart(store, kit.engine, fc.flowchart_id);
            assert.equal(outcome.status, 'completed', JSON.stringify(outcome.error));
          },
          ids: async () =>
            (await listNodeArtifacts(store, { flowchart_id: fc.flowchart_id })).items
              .map((a) => a.artifact_id)
              .reverse(),
        });
      } finally {
        await kit.close();
      }
    });

  test('forever keeps every artifact', async () =>
    withClock({ retention_mode: 'forever' }, async ({ run, ids }) => {
      for (let i = 0; i < 3; i++) await run();
      assert.equal((await ids()).length, 3);
    }));

  test('max_count keeps the newest N on write', async () =>
    withClock({ retention_mode: 'max_count', retention_max_count: 2 }, async ({ run, ids }) => {
      await run();
      const [first] = await ids();
      await run();
      await run();
      const left = await ids();
      assert.equal(left.length, 2);
      assert.ok(!left.includes(first!));
    }));

  test('ttl expires on the next write and in the sweep', async () =>
    withClock(
      { retention_mode: 'ttl', retention_ttl_seconds: 60 },
      async ({ store, run, ids, advance, now }) => {
        await run();
        advance(30);
        await run();
        assert.equal((await ids()).length, 2);
        advance(31);
        await run(); // the first (61 s old) goes on write; the second (31 s) stays
        assert.equal((await ids()).length, 2);
        advance(59);
        assert.deepEqual(await sweepNodeArtifacts(store, now()), { deleted: 1 });
        assert.equal((await ids()).length, 1);
        advance(1);
        const sweeper = startArtifactSweeper(store, { intervalMs: 20, now });
        try {
          for (let i = 0; i < 200 && (await ids()).length > 0; i++) await sleep(20);
        } finally {
          sweeper.stop();
        }
        assert.equal((await ids()).length, 0, 'the periodic sweep removed the last one');
      },
    ));

  test('ttl_max_count applies both', async () =>
    withClock(
      { retention_mode: 'ttl_max_count', retention_ttl_seconds: 100, retention_max_count: 2 },
      async ({ run, ids, advance }) => {
        await run();
        await run();
        await run();
        assert.equal((await ids()).length, 2);
        advance(101);
        await run();
        assert.equal((await ids()).length, 1);
      },
    ));
});
