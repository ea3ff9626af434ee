import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isNoemaError } from '../../../core/errors.ts';
import type { Store } from '../../../store/store.ts';
import { describeEachStore } from '../../../testing/each-store.ts';
import { branchCreate } from '../branch-ops.ts';
import { graphQuery } from '../graph/query.ts';
import { registerTarget } from '../targets.ts';
import { init } from '../workspace-ops.ts';
import { thinkCard } from './card.ts';
import { CARD_TYPES } from './cards.ts';
import { thinkContext } from './context.ts';
import { thinkNext } from './next.ts';
import { thinkTemplate } from './template.ts';

const WS = 'ws';
const at = { workspace: WS, branch: 'main', trace_doc: 'trace', graph_doc: 'graph' };
const view = { workspace: WS, branch: 'main', graph_doc: 'graph' };

async function rejectsWith(p: Promise<unknown>, code: string): Promise<void> {
  await assert.rejects(p, (e: unknown) => isNoemaError(e) && e.code === code);
}

async function counts(store: Store): Promise<{ trace: number; nodes: number; edges: number }> {
  const n = async (sql: string) => Number((await store.get<{ n: number }>(sql))?.n);
  return {
    trace: await n("SELECT COUNT(*) AS n FROM doc_entries WHERE doc = 'trace' OR doc LIKE '%-trace'"),
    nodes: await n('SELECT COUNT(*) AS n FROM graph_nodes'),
    edges: await n('SELECT COUNT(*) AS n FROM graph_edges'),
  };
}

describeEachStore('thinking cards', (factory) => {
  test('think_template is deterministic; an unknown type is UNKNOWN_TYPE listing supported_types', async () => {
    const { store, dispose } = await factory.open();
    try {
      await init(store, { workspace: WS });
      const t = await thinkTemplate(store, { workspace: WS, type: 'hypothesis' });
      assert.deepEqual(t.supported_types, [...CARD_TYPES]);
      assert.deepEqual(Object.keys(t.template).sort(), [
        'id',
        'meta',
        'status',
        'tags',
        'text',
        'title',
        'type',
      ]);
      assert.deepEqual(await thinkTemplate(store, { workspace: WS, type: 'hypothesis' }), t);
      await assert.rejects(thinkTemplate(store, { workspace: WS, type: 'musing' }), (e: unknown) => {
        assert.ok(isNoemaError(e));
        assert.equal(e.code, 'UNKNOWN_TYPE');
        for (const type of CARD_TYPES) assert.ok(e.hint?.includes(type));
        return true;
      });
      await rejectsWith(thinkTemplate(store, { workspace: 'nope', type: 'note' }), 'UNKNOWN_WORKSPACE');
      await rejectsWith(
        thinkTemplate(store, { workspace: WS, type: 'note', max_chars: 10 }),
        'BUDGET_TOO_SMALL',
      );
    } finally {
      await dispose();
    }
  });

  test('think_card writes the trace entry and the graph node/edges together', async () => {
    const { store, dispose } = await factory.open();
    try {
      await init(store, { workspace: WS });
      await thinkCard(store, { ...at, card: 'id: H-1\ntype: hypothesis\ntitle: cold cache' });
      const r = await thinkCard(store, {
        ...at,
        card: { id: 'E-1', type: 'evidence', text: 'p99 drops after warmup', source: 'bench' },
        supports: ['H-1'],
        blocks: ['Q-9'],
      });
      assert.deepEqual([r.inserted, r.graph_applied], [true, { nodes_upserted: 1, edges_upserted: 2 }]);
      assert.equal(r.card.status, 'open');
      const g = await graphQuery(store, { workspace: WS, branch: 'main', doc: 'graph' });
      const e1 = g.nodes.find((n) => n.id === 'E-1')!;
      assert.deepEqual([e1.type, e1.status, e1.meta], ['evidence', 'open', { source: 'bench' }]);
      assert.deepEqual(
        g.edges.map((e) => `${e.from}-${e.rel}-${e.to}`),
        ['E-1-supports-H-1'],
      );
      const entry = await store.get<{ kind: string; content: string }>(
        "SELECT kind, content FROM doc_entries WHERE doc = 'trace' ORDER BY seq DESC LIMIT 1",
      );
      assert.equal(entry?.kind, 'note');
      assert.equal(JSON.parse(entry!.content).card.id, 'E-1');
      assert.deepEqual(await counts(store), { trace: 2, nodes: 2, edges: 2 });
    } finally {
      await dispose();
    }
  });

  test('repeating an identical card is a no-op; a changed card updates the node', async () => {
    const { store, dispose } = await factory.open();
    try {
      await init(store, { workspace: WS });
      const card = { id: 'Q-1', type: 'question', title: 'why slow?', tags: ['Perf'] };
      await thinkCard(store, { ...at, card, supports: ['F-1'] });
      const before = await counts(store);
      const again = await thinkCard(store, {
        ...at,
        card: JSON.stringify({ ...card, tags: ['perf'] }),
        supports: ['F-1'],
      });
      assert.equal(again.inserted, false);
      assert.deepEqual(again.graph_applied, { nodes_upserted: 0, edges_upserted: 0 });
      assert.equal(again.last_seq, undefined);
      assert.deepEqual(await counts(store), before);

      const changed = await thinkCard(store, {
        ...at,
        card: { ...card, status: 'answered' },
        supports: ['F-1'],
      });
      assert.deepEqual(
        [changed.inserted, changed.graph_applied],
        [true, { nodes_upserted: 1, edges_upserted: 0 }],
      );
      const g = await graphQuery(store, { workspace: WS, branch: 'main', doc: 'graph', ids: ['Q-1'] });
      assert.equal(g.nodes[0]!.status, 'answered');
      assert.deepEqual(await counts(store), {
        trace: before.trace + 1,
        nodes: before.nodes + 1,
        edges: before.edges,
      });
    } finally {
      await dispose();
    }
  });

  test('invalid cards and unknown refs write nothing', async () => {
    const { store, dispose } = await factory.open();
    try {
      await init(store, { workspace: WS });
      await rejectsWith(
        thinkCard(store, { ...at, card: { id: 'x', type: 'musing', title: 't' } }),
        'UNKNOWN_TYPE',
      );
      await rejectsWith(thinkCard(store, { ...at, card: { id: 'x', type: 'note' } }), 'INVALID_INPUT');
      await rejectsWith(
        thinkCard(store, { ...at, card: { id: 'x', type: 'note', title: 't' }, supports: ['task:1'] }),
        'INVALID_INPUT',
      );
      await rejectsWith(
        thinkCard(store, { ...at, branch: 'ghost', card: { id: 'x', type: 'note', title: 't' } }),
        'UNKNOWN_BRANCH',
      );
      await rejectsWith(
        thinkCard(store, { workspace: WS, target: 'TASK-009', card: { id: 'x', type: 'note', title: 't' } }),
        'UNKNOWN_TARGET',
      );
      await rejectsWith(
        thinkCard(store, { workspace: WS, branch: 'main', card: { id: 'x', type: 'note', title: 't' } }),
        'INVALID_INPUT',
      );
      await rejectsWith(
        thinkCard(store, { ...at, workspace: 'nope', card: { id: 'x', type: 'note', title: 't' } }),
        'UNKNOWN_WORKSPACE',
      );
      assert.deepEqual(await counts(store), { trace: 0, nodes: 0, edges: 0 });
    } finally {
      await dispose();
    }
  });

  test('with a target, cards go to the canonical trace and graph docs (or an explicit branch)', async () => {
    const { store, dispose } = await factory.open();
    try {
      await init(store, { workspace: WS });
      await store.transaction(async (tx) => {
        await tx.run(
          "INSERT INTO reasoning_branches (workspace, name, base_branch, base_seq, created_at_ms) VALUES (?, 'task/TASK-001', NULL, NULL, 0)",
          [WS],
        );
        await registerTarget(tx, WS, 'TASK-001');
      });
      const r = await thinkCard(store, {
        workspace: WS,
        target: 'TASK-001',
        card: 'id: F-1\ntype: frame\ntitle: scope',
      });
      assert.deepEqual(
        [r.branch, r.trace_doc, r.graph_doc],
        ['task/TASK-001', 'TASK-001-trace', 'TASK-001-graph'],
      );
      await branchCreate(store, { workspace: WS, name: 'what-if', from: 'task/TASK-001' });
      const w = await thinkCard(store, {
        workspace: WS,
        target: 'TASK-001',
        branch: 'what-if',
        card: 'id: H-1\ntype: hypothesis\ntitle: maybe',
      });
      assert.equal(w.branch, 'what-if');
      const onCanonical = await thinkContext(store, { workspace: WS, target: 'TASK-001' });
      assert.deepEqual(
        onCanonical.cards.map((c) => c.id),
        ['F-1'],
      );
      const onWhatIf = await thinkContext(store, { workspace: WS, target: 'TASK-001', branch: 'what-if' });
      assert.deepEqual(
        onWhatIf.cards.map((c) => c.id),
        ['H-1', 'F-1'],
      );
    } finally {
      await dispose();
    }
  });

  test('think_context returns cards recent-first with stats.by_type, bounded', async () => {
    const { store, dispose } = await factory.open();
    try {
      await init(store, { workspace: WS });
      const types = ['frame', 'hypothesis', 'hypothesis', 'question', 'evidence'];
      for (const [i, type] of types.entries())
        await thinkCard(store, {
          ...at,
          card: { id: `c${i}`, type, title: `card ${i}`, text: 'y'.repeat(100) },
        });
      const ctx = await thinkContext(store, view);
      assert.deepEqual(
        ctx.cards.map((c) => c.id),
        ['c4', 'c3', 'c2', 'c1', 'c0'],
      );
      assert.deepEqual(ctx.stats, {
        cards: 5,
        by_type: { frame: 1, hypothesis: 2, question: 1, evidence: 1 },
      });
      assert.equal(ctx.truncated, false);
      const two = await thinkContext(store, { ...view, limit_cards: 2 });
      assert.deepEqual(
        two.cards.map((c) => c.id),
        ['c4', 'c3'],
      );
      const cut = await thinkContext(store, { ...view, max_chars: JSON.stringify(ctx).length - 50 });
      assert.equal(cut.truncated, true);
      assert.deepEqual(
        cut.cards.map((c) => c.id),
        ['c4', 'c3', 'c2', 'c1'],
      );
      await rejectsWith(thinkContext(store, { ...view, max_chars: 30 }), 'BUDGET_TOO_SMALL');
    } finally {
      await dispose();
    }
  });

  test('think_next picks the most recent open question/hypothesis lacking a test or evidence', async () => {
    const { store, dispose } = await factory.open();
    try {
      await init(store, { workspace: WS });
      const empty = await thinkNext(store, view);
      assert.equal(empty.card, null);
      await thinkCard(store, { ...at, card: { id: 'H-1', type: 'hypothesis', title: 'a' } });
      await thinkCard(store, { ...at, card: { id: 'Q-1', type: 'question', title: 'b' } });
      await thinkCard(store, { ...at, card: { id: 'N-1', type: 'note', title: 'c' } });
      assert.equal((await thinkNext(store, view)).card?.id, 'Q-1');
      await thinkCard(store, {
        ...at,
        card: { id: 'E-1', type: 'evidence', title: 'd', status: 'done' },
        supports: ['Q-1'],
      });
      const next = await thinkNext(store, view);
      assert.equal(next.card?.id, 'H-1');
      assert.match(next.reason, /hypothesis/);
      await thinkCard(store, { ...at, card: { id: 'T-1', type: 'test', title: 'e' }, supports: ['H-1'] });
      const t = await thinkNext(store, view);
      assert.equal(t.card?.id, 'T-1');
      assert.match(t.reason, /test/);
    } finally {
      await dispose();
    }
  });
});
