/**
 * What a flowchart run commits: a node's start is a record carried to its first commit — its first
 * model call's, made before the call, or its finish (one statement with it) — with the step before
 * it; a finish without writes of the node's own (its row, an artifact) rides the next node's first
 * commit; a node's own writes commit without waiting for the disk; and starting a node reads no row
 * back on a run this process created.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachStore } from '../../testing/each-store.ts';
import { EXAMPLE, EXAMPLE_SCRIPT, flowKit, readJson } from '../../testing/flow-kit.ts';
import { recordingTransactions } from '../../testing/recording-store.ts';
import { createFlowchart, getFlowRun, runFlowchart } from './index.ts';

const has = (sqls: string[], text: string) => sqls.some((q) => q.includes(text));

describeEachStore('flowchart run commits', (factory) => {
  test("a node's start commits with its first record and the step before it, and reads no row back", async () =>
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

        const txs = recorded.slice(tx0).map((t) => t.sqls);
        const count = (t: string[], text: string) => t.filter((q) => q.includes(text)).length;
        const total = (text: string) => txs.reduce((n, t) => n + count(t, text), 0);
        assert.equal(total('INSERT INTO flowchart_node_runs'), 8, 'one start per node run');
        // A node that makes a model call writes its start before the call and its finish after it; one
        // that makes none (start, recall, triaged, the end) writes both in one statement: 8 finishes → 4.
        assert.equal(
          total('UPDATE flowchart_node_runs SET status'),
          4,
          'a finish of its own per node with a call',
        );
        assert.equal(total('ON CONFLICT (node_run_id) DO UPDATE'), 4, 'a start that finishes the others');
        // A node run's rows never commit on their own: with the step before (a start), a model call's
        // record, made before the call (a start), or the settle of the node's last call (a finish).
        for (const t of txs.filter((t) => has(t, 'flowchart_node_runs')))
          assert.ok(
            has(t, 'INSERT INTO engine_journal') ||
              has(t, 'INSERT INTO engine_contracts') ||
              has(t, 'UPDATE engine_contracts'),
            t.join('\n'),
          );
        // The commits of the run: its creation, claimed in the same transaction (1); a node whose finish has no writes of its
        // own (start, recall, the end: its row and an artifact no node reads) none of its own; one with
        // writes of its own (triaged) one; per model call its record and its finish (summarize, and
        // route, whose artifact rides the next commit: 2 each); a node that also writes after its call
        // one more (remember, plan: 3); the run's end (1).
        assert.equal(txs.length, 1 + 2 + 3 + 0 + 3 + 1 + 2 + 1, txs.map((t) => t.join(' | ')).join('\n'));
        // Durability: a model call's record (before the call) and the run's end wait for the disk; a
        // node's own writes (after its calls, or of a node that makes none) precede no call and
        // acknowledge nothing, so they do not.
        const all = recorded.slice(tx0);
        for (const t of all.filter((t) => has(t.sqls, 'INSERT INTO source_invocations')))
          assert.equal(t.durability, 'immediate', t.sqls.join('\n'));
        assert.equal(all.at(-1)!.durability, 'immediate', "the run's end");
        const own = all.filter(
          (t) =>
            has(t.sqls, 'INSERT INTO node_artifacts') &&
            !has(t.sqls, 'INSERT INTO source_invocations') &&
            !has(t.sqls, 'UPDATE engine_runs SET status'),
        );
        assert.equal(own.length, 3, own.map((t) => t.sqls.join(' | ')).join('\n'));
        for (const t of own) assert.equal(t.durability, 'deferred', t.sqls.join('\n'));
        // Only a claim's first step may repeat an earlier execution (a claim after a crash), and not on
        // the run's first claim by the process that created it: no node looks for a finished row.
        const readBack = reads
          .slice(read0)
          .filter((q) => /FROM flowchart_node_runs WHERE node_run_id = \?/.test(q));
        assert.equal(readBack.length, 0);
        // The flowchart (its graph's revision) is read in the transaction that creates the run.
        assert.deepEqual(
          reads.slice(read0).filter((q) => q.includes('FROM flowcharts')),
          [],
          'no read of the flowchart before its run is created',
        );
        assert.ok(
          has(txs[0]!, 'FROM flowcharts') && has(txs[0]!, 'INSERT INTO flowchart_runs'),
          txs[0]!.join('\n'),
        );
        // The run is created claimed (its attempt recorded there), with no claim of its own after it.
        assert.ok(has(txs[0]!, 'INSERT INTO engine_run_attempts'), txs[0]!.join('\n'));
        assert.deepEqual(
          txs.filter((t) => has(t, "UPDATE engine_runs SET status = 'running'")),
          [],
          'a claim of its own',
        );
      } finally {
        await kit.close();
      }
    }));
});
