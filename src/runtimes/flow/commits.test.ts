/**
 * What a flowchart run commits: a node's start is a record of the run that carries the step before
 * it (one commit, not two), and starting a node reads nothing back.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachStore } from '../../testing/each-store.ts';
import { EXAMPLE, EXAMPLE_SCRIPT, flowKit, readJson } from '../../testing/flow-kit.ts';
import { recordingTransactions } from '../../testing/recording-store.ts';
import { createFlowchart, getFlowRun, runFlowchart } from './index.ts';

describeEachStore('flowchart run commits', (factory) => {
  test("a node's start commits with the step before it, and reads no row back", async () =>
    factory.withStore(async ({ store: raw }) => {
      const { store, recorded, reads } = recordingTransactions(raw);
      // No fan-out: with it (PostgreSQL) a node's progress events are flushed after 50 ms, and under
      // load that flush — a transaction of the run — carries the step before the next node starts.
      const kit = await flowKit(store, readJson(EXAMPLE_SCRIPT), { fanOut: false });
      try {
        const fc = await createFlowchart(store, readJson(EXAMPLE));
        const [tx0, read0] = [recorded.length, reads.length];
        const { flowchart_run_id, outcome } = await runFlowchart(store, kit.engine, fc.flowchart_id, {
          input: { message: 'my printer jams' },
        });
        assert.equal(outcome.status, 'completed', JSON.stringify(outcome.error));
        const run = await getFlowRun(raw, kit.engine, flowchart_run_id);
        assert.equal(run.node_runs.length, 8);
        assert.ok(run.node_runs.every((n, i) => n.status === 'succeeded' && n.execution_index === i + 1));

        const starts = recorded
          .slice(tx0)
          .filter((t) => t.sqls.some((q) => q.includes('INSERT INTO flowchart_node_runs')));
        assert.equal(starts.length, 8, 'one start per node run');
        // Every node after the first starts in the transaction that commits the step before it.
        const withStep = starts.filter((t) => t.sqls.some((q) => q.includes('INSERT INTO engine_journal')));
        assert.equal(withStep.length, 7);
        const readBack = reads
          .slice(read0)
          .filter((q) => /FROM flowchart_node_runs WHERE node_run_id = \?/.test(q));
        assert.deepEqual(readBack, []);
      } finally {
        await kit.close();
      }
    }));
});
