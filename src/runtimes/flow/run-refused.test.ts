/**
 * A flowchart run reads its flowchart in the transaction that creates it, the flowchart_runs insert
 * issued before the graph's nodes and edges are read. When that insert fails, the caller is told the
 * insert's error on both stores — not, on PostgreSQL, the error of the graph's read issued after it
 * into the transaction the failure aborted (`25P02`).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachStore } from '../../testing/each-store.ts';
import { flowKit } from '../../testing/flow-kit.ts';
import { createFlowchart, runFlowchart } from './index.ts';

const graph = {
  nodes: [
    { id: 'start', node_type: 'start' },
    { id: 'end', node_type: 'end' },
  ],
  edges: [{ source_node_id: 'start', target_node_id: 'end', edge_mode: 'solid' }],
};

describeEachStore('flowcharts: a refused flowchart_runs insert is the run creation’s error', (factory) => {
  test('a run whose flowchart_runs insert is refused fails with that refusal (CONFLICT) and writes nothing', async () =>
    factory.withStore(async ({ store }) => {
      const kit = await flowKit(store, { rules: [], default: { json: { text: 'x' } } }, { fanOut: false });
      try {
        const fc = await createFlowchart(store, { name: 'refused', graph });
        // A constraint that refuses the insert: a request id used once already.
        await store.run('CREATE UNIQUE INDEX flowchart_runs_request_once ON flowchart_runs (request_id)');
        await store.run(
          `INSERT INTO flowchart_runs (flowchart_run_id, flowchart_id, input_json, request_id, correlation_id, created_at)
           VALUES ('00000000-0000-7000-8000-000000000001', ?, '{}', 'req-dup', NULL, '2026-01-01T00:00:00.000Z')`,
          [fc.flowchart_id],
        );
        // The revision is new to this process: its graph is read in the creating transaction.
        const err = await runFlowchart(store, kit.engine, fc.flowchart_id, { request_id: 'req-dup' }).then(
          () => null,
          (e: { code?: string; message?: string }) => e,
        );
        assert.ok(err, 'the run was refused');
        assert.equal(err.code, 'CONFLICT', `refused with: ${err.code}: ${err.message}`);
        const runs = await store.get<{ n: number }>('SELECT COUNT(*) AS n FROM engine_runs');
        assert.equal(Number(runs!.n), 0);
      } finally {
        await kit.close();
      }
    }));
});
