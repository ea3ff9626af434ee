/**
 * Work that collides across processes: two processes executing runs of one flowchart at once write
 * the flowchart's shared rows (its milestones) without a duplicate key and without both reporting
 * the same transition.
 *
 * Pinned to PostgreSQL: only there do two processes' write transactions overlap (SQLite lets one
 * writer in at a time, so the read-then-write these specs guard cannot interleave on it).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { openTestStore, selectedStores } from '../../src/testing/stores.ts';
import { queueFlowRuns } from '../../src/testing/worker-kit.ts';

const BURST = fileURLToPath(new URL('../../src/testing/flow-burst.ts', import.meta.url));
/** Flowcharts, and runs of each in each of the two processes. */
const FLOWCHARTS = 6;
const RUNS_EACH = 2;

/** Runs `run_ids` in a child process, all at once from `startAt`; resolves with one outcome per run. */
function burst(
  db: string,
  startAt: number,
  runIds: string[],
): Promise<Array<{ run_id: string; status: string; error: unknown }>> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BURST, String(startAt), ...runIds], {
      env: { ...process.env, NOEMA_DB: db },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      err += d;
    });
    child.on('exit', (code) => {
      if (code !== 0) reject(new Error(`flow-burst exited ${code}: ${err}`));
      else
        resolve(
          out
            .trim()
            .split('\n')
            .map((l) => JSON.parse(l)),
        );
    });
  });
}

/** start → milestone `triaged` (mark_complete) → end: no model call, so runs reach the milestone together. */
const MILESTONE_FLOW = {
  name: 'Milestone only',
  graph: {
    nodes: [
      { id: 'start', node_type: 'start', title: 'Start' },
      { id: 'triaged', node_type: 'milestone', title: 'Triaged', config: { action: 'mark_complete' } },
      { id: 'done', node_type: 'end', title: 'Done' },
    ],
    edges: [
      { id: 'e1', source_node_id: 'start', target_node_id: 'triaged', edge_mode: 'solid' },
      { id: 'e2', source_node_id: 'triaged', target_node_id: 'done', edge_mode: 'solid' },
    ],
  },
};

const postgres = selectedStores().includes('postgres');

describe('flowchart runs of one flowchart in two processes', {
  skip: postgres ? false : 'STORES excludes postgres',
}, () => {
  test('a milestone applied by runs in two processes at once: no duplicate key, the checkpoint hit once', async () => {
    const ts = await openTestStore('postgres');
    try {
      const mine: string[][] = [[], []];
      for (let f = 0; f < FLOWCHARTS; f++) {
        const ids = await queueFlowRuns(ts.store, 2 * RUNS_EACH, {
          ...MILESTONE_FLOW,
          name: `Milestone ${f}`,
        });
        for (const [i, id] of ids.entries()) mine[i % 2]!.push(id);
      }
      const startAt = Date.now() + 1_500;
      const outcomes = (await Promise.all(mine.map((ids) => burst(ts.url, startAt, ids)))).flat();
      assert.deepEqual(
        outcomes.filter((o) => o.status !== 'completed'),
        [],
        'every run completed',
      );
      const milestones = await ts.store.all<{ flowchart_id: string; status: string }>(
        'SELECT flowchart_id, status FROM flow_milestones',
      );
      assert.equal(milestones.length, FLOWCHARTS);
      assert.ok(milestones.every((m) => m.status === 'complete'));
      const hits = await ts.store.all<{ flowchart_id: string; routing_state: string }>(
        "SELECT flowchart_id, routing_state FROM flowchart_node_runs WHERE flowchart_node_id = 'triaged'",
      );
      assert.equal(hits.length, FLOWCHARTS * 2 * RUNS_EACH);
      const hitBy = new Map<string, number>();
      for (const h of hits)
        if ((JSON.parse(h.routing_state) as { checkpoint_hit: boolean }).checkpoint_hit)
          hitBy.set(h.flowchart_id, (hitBy.get(h.flowchart_id) ?? 0) + 1);
      assert.deepEqual(
        [...hitBy.values()],
        Array(FLOWCHARTS).fill(1),
        'one run of each flowchart made its milestone complete',
      );
    } finally {
      await ts.dispose();
    }
  });
});
