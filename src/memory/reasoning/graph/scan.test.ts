import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachStore } from '../../../testing/each-store.ts';
import { branchCreate } from '../branch-ops.ts';
import { init } from '../workspace-ops.ts';
import { graphApply } from './apply.ts';
import { nodeWhere } from './query.ts';
import { viewSources } from './ref.ts';
import { scanNodes } from './scan.ts';

const WS = 'ws';
const scope = { workspace: WS, doc: 'g' };

describeEachStore('graph scan budget', (factory) => {
  test('a budgeted filter walk finds every match across short pages, on a branch too', async () => {
    const { store, dispose } = await factory.open();
    try {
      await init(store, { workspace: WS });
      const up = (id: string, title: string) => ({ op: 'node_upsert', id, type: 't', title });
      await graphApply(store, {
        workspace: WS,
        branch: 'main',
        doc: 'g',
        ops: [up('m0', 'needle'), up('m1', 'hay'), up('m2', 'hay')],
      });
      await branchCreate(store, { workspace: WS, name: 'b', from: 'main' });
      await graphApply(store, { workspace: WS, branch: 'main', doc: 'g', ops: [up('late', 'needle')] });
      await graphApply(store, {
        workspace: WS,
        branch: 'b',
        doc: 'g',
        ops: [up('b0', 'hay'), up('b1', 'needle'), up('b2', 'hay'), up('b3', 'hay'), up('m1', 'needle too')],
      });
      for (const [branch, expected] of [
        ['main', ['late', 'm0']],
        ['b', ['m1', 'b1', 'm0']],
      ] as const) {
        const sources = await viewSources(store, scope, branch);
        const where = nodeWhere({ text: 'needle' });
        const seen: string[] = [];
        let before: number | null = null;
        let calls = 0;
        for (;;) {
          calls++;
          const page = await scanNodes(store, scope, sources, where, { before, limit: 10 }, 2);
          seen.push(...page.rows.map((r) => r.node_id));
          if (page.frontier === null) break;
          before = page.frontier;
        }
        assert.deepEqual(seen, expected, `matches on ${branch}`);
        assert.ok(calls > 1, 'the budget made the walk take several calls');
      }
    } finally {
      await dispose();
    }
  });
});
