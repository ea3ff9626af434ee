/**
 * Property tests: for random branch trees and op sequences (with merges), the effective view
 * equals a naive materialization of the raw version rows; graph_merge is idempotent and leaves
 * every key changed on `from` either equal on `into` or recorded as a conflict.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { Store } from '../../../store/store.ts';
import { describeEachStore } from '../../../testing/each-store.ts';
import { branchCreate } from '../branch-ops.ts';
import { init } from '../workspace-ops.ts';
import { graphApply } from './apply.ts';
import { graphMerge } from './merge.ts';
import { graphQuery } from './query.ts';
import { viewSources } from './ref.ts';
import { type EdgeRow, type NodeRow, sameState, toEdge, toNode } from './rows.ts';
import type { GraphNode } from './types.ts';
import { effectiveEdges } from './view.ts';

const DOC = 'g';
const KEYS = ['n0', 'n1', 'n2', 'n3'];

type Action =
  | { t: 'apply'; b: number; ops: Array<{ del: boolean; edge: boolean; x: number; y: number; v: number }> }
  | { t: 'branch'; b: number }
  | { t: 'merge'; b: number };

const action: fc.Arbitrary<Action> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      t: fc.constant('apply' as const),
      b: fc.nat(7),
      ops: fc.array(
        fc.record({ del: fc.boolean(), edge: fc.boolean(), x: fc.nat(3), y: fc.nat(3), v: fc.nat(2) }),
        { minLength: 1, maxLength: 4 },
      ),
    }),
  },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('branch' as const), b: fc.nat(7) }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('merge' as const), b: fc.nat(7) }) },
);

/** The definition, written the slow obvious way from raw rows. */
async function naiveView(store: Store, ws: string, branch: string) {
  const branches = new Map(
    (
      await store.all<{ name: string; base_branch: string | null; base_seq: number | null }>(
        'SELECT name, base_branch, base_seq FROM reasoning_branches WHERE workspace = ?',
        [ws],
      )
    ).map((b) => [b.name, b]),
  );
  const visible: Array<{ branch: string; cutoff: number }> = [{ branch, cutoff: Number.POSITIVE_INFINITY }];
  let cur = branches.get(branch);
  let cutoff = Number.POSITIVE_INFINITY;
  while (cur?.base_branch) {
    cutoff = Math.min(cutoff, Number(cur.base_seq));
    visible.push({ branch: cur.base_branch, cutoff });
    cur = branches.get(cur.base_branch);
  }
  const sees = (r: { branch: string; seq: number }) =>
    visible.some((s) => s.branch === r.branch && Number(r.seq) <= s.cutoff);
  const latest = <R extends { branch: string; seq: number }>(rows: R[], key: (r: R) => string) => {
    const m = new Map<string, R>();
    for (const r of rows) if (sees(r) && Number(r.seq) > Number(m.get(key(r))?.seq ?? -1)) m.set(key(r), r);
    return m;
  };
  const nodes = latest(
    await store.all<NodeRow>('SELECT * FROM graph_nodes WHERE workspace = ? AND doc = ?', [ws, DOC]),
    (r) => r.node_id,
  );
  const edges = latest(
    await store.all<EdgeRow>('SELECT * FROM graph_edges WHERE workspace = ? AND doc = ?', [ws, DOC]),
    (r) => `${r.from_id}|${r.rel}|${r.to_id}`,
  );
  return {
    nodes: [...nodes.values()]
      .filter((r) => Number(r.deleted) === 0)
      .map(toNode)
      .sort((a, b) => b.last_seq - a.last_seq),
    edges: [...edges.values()]
      .filter((r) => Number(r.deleted) === 0)
      .map(toEdge)
      .sort((a, b) => b.last_seq - a.last_seq),
  };
}

/** Query filters, and the same predicate written naively. */
const FILTERS: Array<[Record<string, unknown>, (n: GraphNode) => boolean]> = [
  [{ types: ['u'] }, (n) => n.type === 'u'],
  [{ tags_any: ['g1', 'g2'] }, (n) => n.tags.includes('g1') || n.tags.includes('g2')],
  [{ tags_all: ['g0', 'h1'] }, (n) => n.tags.includes('g0') && n.tags.includes('h1')],
  [{ text: 'V2' }, (n) => (n.title ?? '').toLowerCase().includes('v2')],
  [{ text: 'n1' }, (n) => n.id === 'n1'],
  [{ ids: ['n0', 'n3'] }, (n) => n.id === 'n0' || n.id === 'n3'],
];

async function versionCount(store: Store, ws: string): Promise<number> {
  const n = await store.get<{ n: number }>('SELECT COUNT(*) AS n FROM graph_nodes WHERE workspace = ?', [ws]);
  const e = await store.get<{ n: number }>('SELECT COUNT(*) AS n FROM graph_edges WHERE workspace = ?', [ws]);
  const c = await store.get<{ n: number }>('SELECT COUNT(*) AS n FROM graph_conflicts WHERE workspace = ?', [
    ws,
  ]);
  return Number(n?.n) + Number(e?.n) + Number(c?.n);
}

async function run(store: Store, ws: string, actions: Action[]): Promise<void> {
  await init(store, { workspace: ws });
  const names = ['main'];
  const bases = new Map<string, string>();
  for (const a of actions) {
    const branch = names[a.b % names.length]!;
    if (a.t === 'branch') {
      const name = `b${names.length}`;
      await branchCreate(store, { workspace: ws, name, from: branch });
      names.push(name);
      bases.set(name, branch);
    } else if (a.t === 'apply') {
      const ops = a.ops.map((o) => {
        if (o.edge) {
          const key = { from: KEYS[o.x]!, rel: `r${o.v % 2}`, to: KEYS[o.y]! };
          return o.del ? { op: 'edge_delete', ...key } : { op: 'edge_upsert', ...key, meta: { v: o.v } };
        }
        return o.del
          ? { op: 'node_delete', id: KEYS[o.x]! }
          : {
              op: 'node_upsert',
              id: KEYS[o.x]!,
              type: o.v % 2 ? 'u' : 't',
              title: `v${o.v}`,
              tags: [`G${o.v}`, `h${o.y % 2}`],
            };
      });
      await graphApply(store, { workspace: ws, branch, doc: DOC, ops });
    } else if (bases.has(branch)) {
      const into = bases.get(branch)!;
      const first = await graphMerge(store, { workspace: ws, from: branch, into, doc: DOC, limit: 1000 });
      const count = await versionCount(store, ws);
      const again = await graphMerge(store, { workspace: ws, from: branch, into, doc: DOC, limit: 1000 });
      assert.equal(again.merged, 0, 'a repeated merge applies nothing');
      assert.equal(again.conflicts_created, 0, 'a repeated merge creates no conflict');
      assert.equal(await versionCount(store, ws), count, 'a repeated merge writes nothing');
      assert.deepEqual(again.conflict_ids ?? [], first.conflict_ids ?? []);
      // Every key changed on `from` now matches `into`, or is an open/resolved conflict.
      const fromView = await naiveView(store, ws, branch);
      const intoView = await naiveView(store, ws, into);
      const own = await store.all<NodeRow>(
        'SELECT * FROM graph_nodes WHERE workspace = ? AND branch = ? AND doc = ? AND is_head = 1',
        [ws, branch, DOC],
      );
      const conflicted = new Set(
        (
          await store.all<{ key: string }>(
            'SELECT key FROM graph_conflicts WHERE workspace = ? AND from_branch = ?',
            [ws, branch],
          )
        ).map((r) => r.key),
      );
      for (const r of own) {
        const theirs = fromView.nodes.find((n) => n.id === r.node_id) ?? null;
        const ours = intoView.nodes.find((n) => n.id === r.node_id) ?? null;
        assert.ok(
          sameState(theirs, ours) || conflicted.has(JSON.stringify(r.node_id)),
          `key ${r.node_id} merged or conflicted`,
        );
      }
    }
  }
  for (const b of names) {
    const expected = await naiveView(store, ws, b);
    const q = await graphQuery(store, {
      workspace: ws,
      branch: b,
      doc: DOC,
      limit: 500,
      include_edges: false,
    });
    assert.deepEqual(q.nodes, expected.nodes, `nodes of ${b}`);
    const sources = await viewSources(store, { workspace: ws, doc: DOC }, b);
    const edges = (
      await effectiveEdges(
        store,
        { workspace: ws, doc: DOC },
        sources,
        { sql: '', params: [] },
        { limit: 500 },
      )
    ).map(toEdge);
    assert.deepEqual(edges, expected.edges, `edges of ${b}`);
    for (const [filter, keep] of FILTERS) {
      const walked: string[] = [];
      let cursor: number | undefined;
      for (let page = 0; page < 20; page++) {
        const r = await graphQuery(store, {
          workspace: ws,
          branch: b,
          doc: DOC,
          limit: 2,
          ...filter,
          ...(cursor ? { cursor } : {}),
        });
        walked.push(...r.nodes.map((n) => n.id));
        if (!r.pagination.has_more) break;
        cursor = r.pagination.next_cursor;
      }
      assert.deepEqual(
        walked,
        expected.nodes.filter(keep).map((n) => n.id),
        `${JSON.stringify(filter)} on ${b}`,
      );
    }
  }
}

describeEachStore('graph properties', (factory) => {
  test('the effective view equals a naive materialization; merges are idempotent; tombstones hide keys', async () => {
    const { store, dispose } = await factory.open();
    let n = 0;
    try {
      await fc.assert(
        fc.asyncProperty(fc.array(action, { minLength: 1, maxLength: 14 }), async (actions) => {
          n += 1;
          await run(store, `p${n}`, actions);
        }),
        { numRuns: factory.kind === 'sqlite' ? 60 : 20 },
      );
    } finally {
      await dispose();
    }
  });
});
