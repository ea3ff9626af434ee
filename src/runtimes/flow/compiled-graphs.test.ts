/**
 * A flowchart's graph is compiled once per saved revision: later runs read its row, not its nodes
 * and edges, and a saved graph is the one the next run executes.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachStore } from '../../testing/each-store.ts';
import { flowKit } from '../../testing/flow-kit.ts';
import { recordingTransactions } from '../../testing/recording-store.ts';
import { createFlowchart, getFlowRun, runFlowchart, saveGraph } from './index.ts';

const chain = (ids: string[]) => ({
  nodes: [
    { id: 'start', node_type: 'start' },
    ...ids.map((id) => ({ id, node_type: 'decision' })),
    { id: 'end', node_type: 'end' },
  ],
  edges: ['start', ...ids].map((from, i) => ({
    source_node_id: from,
    target_node_id: [...ids, 'end'][i],
    edge_mode: 'solid',
    ...(from === 'start' ? {} : { condition: { path: '/input/go', exists: true } }),
  })),
});

describeEachStore('flowchart graphs compiled per revision', (factory) => {
  test('a second run of a revision reads no node or edge; a saved graph is run as saved', async () =>
    factory.withStore(async ({ store: raw }) => {
      const { store, reads, recorded } = recordingTransactions(raw);
      const kit = await flowKit(store, { rules: [], default: { json: { text: 'x' } } }, { fanOut: false });
      try {
        const fc = await createFlowchart(store, { name: 'cached', graph: chain(['a']) });
        // Read in the transaction that creates the run, or outside one.
        const graphReads = () =>
          [...reads, ...recorded.flatMap((t) => t.sqls)].filter((q) => /FROM flowchart_(nodes|edges)/.test(q))
            .length;
        const run = async () => {
          const { flowchart_run_id, outcome } = await runFlowchart(store, kit.engine, fc.flowchart_id, {
            input: { go: true },
          });
          assert.equal(outcome.status, 'completed', JSON.stringify(outcome.error));
          const view = await getFlowRun(raw, kit.engine, flowchart_run_id);
          return view.node_runs.map((n) => n.flowchart_node_id);
        };
        const created = graphReads();
        assert.deepEqual(await run(), ['start', 'a', 'end']);
        const first = graphReads();
        assert.equal(first - created, 2, 'the first run reads the nodes and the edges');
        assert.deepEqual(await run(), ['start', 'a', 'end']);
        assert.equal(graphReads(), first, 'the second run reads neither');

        await saveGraph(raw, fc.flowchart_id, chain(['a', 'b']));
        assert.deepEqual(await run(), ['start', 'a', 'b', 'end']);
      } finally {
        await kit.close();
      }
    }));

  test('a run of a missing flowchart, or of a graph that cannot run, is refused and writes nothing', async () =>
    factory.withStore(async ({ store }) => {
      const kit = await flowKit(store, { rules: [], default: { json: { text: 'x' } } }, { fanOut: false });
      try {
        const runs = async () =>
          Number((await store.get<{ n: number }>('SELECT COUNT(*) AS n FROM engine_runs'))!.n);
        const flowRuns = async () =>
          Number((await store.get<{ n: number }>('SELECT COUNT(*) AS n FROM flowchart_runs'))!.n);
        await assert.rejects(runFlowchart(store, kit.engine, 'no-such-flowchart'), {
          code: 'UNKNOWN_FLOWCHART',
        });
        const fc = await createFlowchart(store, {
          name: 'endless',
          graph: { nodes: [{ id: 'end', node_type: 'end' }], edges: [] },
        });
        await assert.rejects(runFlowchart(store, kit.engine, fc.flowchart_id), { code: 'FLOWCHART_INVALID' });
        assert.deepEqual([await runs(), await flowRuns()], [0, 0]);
      } finally {
        await kit.close();
      }
    }));
});
