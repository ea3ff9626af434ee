/**
 * A node whose finish commits its own writes (a milestone, a plan, a memory added) issues its last
 * writes, its artifact and its finished row without waiting for their answers, so on PostgreSQL the
 * COMMIT travels with them: the finishing transaction waits only for what it reads (the milestone's
 * lock), not once more for its writes before committing. Pinned to PostgreSQL: round trips exist only
 * where statements travel to a server (on SQLite the same writes run as they are issued, which the
 * flowchart tests hold on both stores).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachStore } from '../../testing/each-store.ts';
import { flowKit } from '../../testing/flow-kit.ts';
import { countPgRoundTrips } from '../../testing/pg-round-trips.ts';
import { findNodeArtifact } from './artifacts/read.ts';
import { createFlowchart, getFlowRun, runFlowchart } from './index.ts';

// Before any store connects: a connection binds its client's `query` as it is handed out.
const { lines } = countPgRoundTrips(true);

const GRAPH = {
  nodes: [
    { id: 'start', node_type: 'start' },
    { id: 'ms', node_type: 'milestone', config: { action: 'create_or_update', title: 'Triaged' } },
    { id: 'end', node_type: 'end' },
  ],
  edges: [
    { source_node_id: 'start', target_node_id: 'ms', edge_mode: 'solid' },
    { source_node_id: 'ms', target_node_id: 'end', edge_mode: 'solid' },
  ],
};

describeEachStore('flowchart node finish: round trips', (factory) => {
  test("an existing milestone's update, its artifact, its finished row and the COMMIT share one round trip", async (t) => {
    await factory.withStore(async ({ store }) => {
      if (!store.capabilities.supportsListenNotify) return t.skip('round trips are PostgreSQL’s');
      const kit = await flowKit(store, { rules: [] }, { fanOut: false });
      try {
        const fc = await createFlowchart(store, { name: 'finish', graph: GRAPH });
        const run = () => runFlowchart(store, kit.engine, fc.flowchart_id, { input: { go: true } });
        assert.equal((await run()).outcome.status, 'completed');
        // The second run finds the milestone: it locks it, then updates it.
        const from = lines.length;
        const second = await run();
        assert.equal(second.outcome.status, 'completed');

        const sent = lines.slice(from);
        const update = sent.findIndex((l) => l.includes('UPDATE flow_milestones SET title'));
        assert.ok(update > 0, `the milestone's update was sent:\n${sent.join('\n')}`);
        const commit = sent.findIndex((l, i) => i > update && l.trimEnd().endsWith('COMMIT'));
        assert.ok(commit > update, 'the finishing transaction commits');
        const finishing = sent.slice(update, commit + 1);
        assert.ok(
          finishing.some((l) => l.includes('INSERT INTO node_artifacts')) &&
            finishing.some((l) => l.includes('flowchart_node_runs')),
          `the artifact and the finished row are in it:\n${finishing.join('\n')}`,
        );
        assert.deepEqual(
          finishing.slice(1).filter((l) => l.startsWith('RT')),
          [],
          `nothing after the update waits for an answer before the COMMIT:\n${finishing.join('\n')}`,
        );

        // What the answers carried is still there: the node run finished, its artifact and its id.
        const view = await getFlowRun(store, kit.engine, second.flowchart_run_id);
        const ms = view.node_runs.find((n) => n.flowchart_node_id === 'ms')!;
        assert.equal(ms.status, 'succeeded');
        const artifact = await findNodeArtifact(store, ms.node_run_id, 'milestone');
        assert.ok(artifact, 'the milestone artifact was written');
        assert.equal((artifact.payload as { milestone: { title: string } }).milestone.title, 'Triaged');
      } finally {
        await kit.close();
      }
    });
  });
});
