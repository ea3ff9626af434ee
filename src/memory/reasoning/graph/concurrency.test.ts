import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachStore } from '../../../testing/each-store.ts';
import { branchCreate } from '../branch-ops.ts';
import { thinkCard } from '../think/card.ts';
import { init } from '../workspace-ops.ts';
import { graphApply } from './apply.ts';
import { graphMerge } from './merge.ts';
import { graphQuery } from './query.ts';

const WS = 'ws';
const at = { workspace: WS, branch: 'main', doc: 'g' };

describeEachStore('graph under concurrent calls', (factory) => {
  test('20 concurrent graph_apply calls lose no version and leave one head per key', async () => {
    const { store, dispose } = await factory.open();
    try {
      await init(store, { workspace: WS });
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          graphApply(store, {
            ...at,
            ops: [
              { op: 'node_upsert', id: 'shared', type: 't', title: `v${i}` },
              { op: 'node_upsert', id: `own${i}`, type: 't' },
            ],
          }),
        ),
      );
      const versions = await store.get<{ n: number }>(
        "SELECT COUNT(*) AS n FROM graph_nodes WHERE node_id = 'shared'",
      );
      assert.equal(Number(versions?.n), 20);
      const heads = await store.all<{ node_id: string; n: number }>(
        'SELECT node_id, COUNT(*) AS n FROM graph_nodes WHERE is_head = 1 GROUP BY node_id',
      );
      assert.equal(heads.length, 21);
      assert.ok(heads.every((h) => Number(h.n) === 1));
      const latest = results.reduce((a, b) => (a.last_seq > b.last_seq ? a : b));
      const q = await graphQuery(store, { ...at, ids: ['shared'] });
      assert.equal(q.nodes[0]!.last_seq, latest.last_seq - 1);
      assert.equal((await graphQuery(store, { ...at, limit: 100 })).nodes.length, 21);
    } finally {
      await dispose();
    }
  });

  test('concurrent identical merges and think cards write once', async () => {
    const { store, dispose } = await factory.open();
    try {
      await init(store, { workspace: WS });
      await graphApply(store, { ...at, ops: [{ op: 'node_upsert', id: 'a', type: 't', title: 'a0' }] });
      await branchCreate(store, { workspace: WS, name: 'f', from: 'main' });
      await graphApply(store, {
        ...at,
        branch: 'f',
        ops: [{ op: 'node_upsert', id: 'a', type: 't', title: 'a1' }],
      });
      const merges = await Promise.all(
        Array.from({ length: 5 }, () =>
          graphMerge(store, { workspace: WS, from: 'f', into: 'main', doc: 'g' }),
        ),
      );
      assert.equal(
        merges.reduce((n, m) => n + m.merged, 0),
        1,
      );
      const card = {
        workspace: WS,
        branch: 'main',
        trace_doc: 'trace',
        graph_doc: 'cards',
        card: { id: 'H-1', type: 'hypothesis', title: 'x' },
      };
      const cards = await Promise.allSettled(Array.from({ length: 5 }, () => thinkCard(store, card)));
      const ok = cards.flatMap((c) => (c.status === 'fulfilled' ? [c.value] : []));
      assert.equal(ok.length, 5, JSON.stringify(cards.filter((c) => c.status === 'rejected')));
      assert.equal(ok.filter((c) => c.inserted).length, 1);
      const nodes = await store.get<{ n: number }>(
        "SELECT COUNT(*) AS n FROM graph_nodes WHERE doc = 'cards'",
      );
      assert.equal(Number(nodes?.n), 1);
    } finally {
      await dispose();
    }
  });
});
