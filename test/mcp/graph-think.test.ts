// End to end over MCP stdio (stock SDK client → `noema mcp`): the graph and thinking tools, their
// typed errors, and that a rejected call changes nothing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachStore } from '../../src/testing/each-store.ts';
import { fingerprint, stdioClient } from './helpers.ts';

const WS = 'e2e';
const G = { workspace: WS, branch: 'main', doc: 'graph' };

describeEachStore('graph and think tools over MCP stdio', (factory) => {
  test('a stock client drives graph apply/query/merge/conflicts and think card/context/next', async () => {
    const { store, url, dispose } = await factory.open();
    const mcp = await stdioClient(url);
    try {
      const tools = (await mcp.client.listTools()).tools.map((t) => t.name);
      for (const name of [
        'branchmind_graph_apply',
        'branchmind_graph_query',
        'branchmind_graph_validate',
        'branchmind_graph_diff',
        'branchmind_graph_merge',
        'branchmind_graph_conflicts',
        'branchmind_graph_conflict_show',
        'branchmind_graph_conflict_resolve',
        'branchmind_think_template',
        'branchmind_think_card',
        'branchmind_think_context',
        'branchmind_think_next',
      ]) {
        assert.ok(tools.includes(name), `${name} is listed`);
      }
      const unknownWs = await mcp.call('branchmind_graph_query', { ...G, workspace: 'never' });
      assert.equal(unknownWs.ok, false);
      if (!unknownWs.ok) {
        assert.equal(unknownWs.error.code, 'UNKNOWN_WORKSPACE');
        assert.match(unknownWs.error.recovery ?? '', /branchmind_init/);
      }
      await mcp.ok('branchmind_init', { workspace: WS });
      const missing = await mcp.call('branchmind_graph_apply', { branch: 'main', doc: 'graph', ops: [] });
      assert.equal(missing.ok ? '' : missing.error.code, 'INVALID_INPUT');

      await mcp.ok('branchmind_graph_apply', {
        ...G,
        ops: [
          { op: 'node_upsert', id: 'a', type: 'hypothesis', title: 'A0', tags: ['X', 'y'] },
          { op: 'node_upsert', id: 'b', type: 'question', title: 'B0' },
          { op: 'edge_upsert', from: 'a', rel: 'supports', to: 'b' },
        ],
      });
      const before = await fingerprint(store);
      const bad = await mcp.call('branchmind_graph_apply', {
        ...G,
        ops: [
          { op: 'node_upsert', id: 'c', type: 'note' },
          { op: 'node_upsert', id: 'task:1', type: 'note' },
        ],
      });
      assert.equal(bad.ok ? '' : bad.error.code, 'INVALID_INPUT');
      const extra = await mcp.call('branchmind_graph_query', { ...G, bogus: 1 });
      assert.equal(extra.ok ? '' : extra.error.code, 'INVALID_INPUT');
      assert.equal(await fingerprint(store), before, 'rejected calls change nothing');

      const q = await mcp.ok<{
        nodes: Array<{ id: string; tags: string[] }>;
        edges: unknown[];
        truncated: boolean;
      }>('branchmind_graph_query', { ...G, tags_any: ['x'] });
      assert.deepEqual(
        q.nodes.map((n) => [n.id, n.tags]),
        [['a', ['x', 'y']]],
      );
      const tiny = await mcp.call('branchmind_graph_query', { ...G, max_chars: 10 });
      assert.equal(tiny.ok ? '' : tiny.error.code, 'BUDGET_TOO_SMALL');

      await mcp.ok('branchmind_branch_create', { workspace: WS, name: 'alt', from: 'main' });
      await mcp.ok('branchmind_graph_apply', {
        ...G,
        branch: 'alt',
        ops: [{ op: 'node_upsert', id: 'a', type: 'hypothesis', title: 'A-alt' }],
      });
      await mcp.ok('branchmind_graph_apply', {
        ...G,
        ops: [{ op: 'node_upsert', id: 'a', type: 'hypothesis', title: 'A-main' }],
      });
      const wrong = await mcp.call('branchmind_graph_merge', {
        workspace: WS,
        from: 'main',
        into: 'alt',
        doc: 'graph',
      });
      assert.equal(wrong.ok ? '' : wrong.error.code, 'MERGE_NOT_SUPPORTED');
      const merged = await mcp.ok<{ conflicts_created: number; conflict_ids: string[] }>(
        'branchmind_graph_merge',
        {
          workspace: WS,
          from: 'alt',
          into: 'main',
          doc: 'graph',
        },
      );
      assert.equal(merged.conflicts_created, 1);
      const again = await mcp.ok<{ conflicts_created: number }>('branchmind_graph_merge', {
        workspace: WS,
        from: 'alt',
        into: 'main',
        doc: 'graph',
      });
      assert.equal(again.conflicts_created, 0);
      const id = merged.conflict_ids[0]!;
      const shown = await mcp.ok<{
        conflict: { base: { title: string }; theirs: { title: string }; ours: { title: string } };
      }>('branchmind_graph_conflict_show', { workspace: WS, conflict_id: id });
      assert.deepEqual(
        [shown.conflict.base.title, shown.conflict.theirs.title, shown.conflict.ours.title],
        ['A0', 'A-alt', 'A-main'],
      );
      await mcp.ok('branchmind_graph_conflict_resolve', {
        workspace: WS,
        conflict_id: id,
        resolution: 'use_from',
      });
      const unknown = await mcp.call('branchmind_graph_conflict_show', {
        workspace: WS,
        conflict_id: 'conflict-x',
      });
      assert.equal(unknown.ok ? '' : unknown.error.code, 'UNKNOWN_CONFLICT');
      const diff = await mcp.ok<{ changes: unknown[] }>('branchmind_graph_diff', {
        workspace: WS,
        from: 'alt',
        to: 'main',
        doc: 'graph',
      });
      assert.ok(Array.isArray(diff.changes));

      const tpl = await mcp.call('branchmind_think_template', { workspace: WS, type: 'musing' });
      assert.equal(tpl.ok ? '' : tpl.error.code, 'UNKNOWN_TYPE');
      assert.match(tpl.ok ? '' : (tpl.error.recovery ?? ''), /hypothesis/);
      const card = {
        workspace: WS,
        branch: 'main',
        trace_doc: 'trace',
        graph_doc: 'cards',
        card: 'id: H-1\ntype: hypothesis\ntitle: it is the cache',
      };
      const first = await mcp.ok<{ inserted: boolean }>('branchmind_think_card', card);
      const repeat = await mcp.ok<{ inserted: boolean; graph_applied: unknown }>(
        'branchmind_think_card',
        card,
      );
      assert.deepEqual([first.inserted, repeat.inserted], [true, false]);
      assert.deepEqual(repeat.graph_applied, { nodes_upserted: 0, edges_upserted: 0 });
      const ctx = await mcp.ok<{ stats: { by_type: Record<string, number> } }>('branchmind_think_context', {
        workspace: WS,
        branch: 'main',
        graph_doc: 'cards',
      });
      assert.deepEqual(ctx.stats.by_type, { hypothesis: 1 });
      const next = await mcp.ok<{ card: { id: string }; reason: string }>('branchmind_think_next', {
        workspace: WS,
        graph_doc: 'cards',
      });
      assert.equal(next.card.id, 'H-1');
    } finally {
      await mcp.close();
      await dispose();
    }
  });
});
