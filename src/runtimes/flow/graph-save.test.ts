import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isNoemaError } from '../../core/errors.ts';
import { describeEachStore } from '../../testing/each-store.ts';
import { createFlowchart, deleteFlowchart, getGraph, listFlowcharts, saveGraph } from './index.ts';

const ok = {
  nodes: [
    { id: 'start', node_type: 'start' },
    { id: 'mem', node_type: 'memory', config: { action: 'add' } },
    { id: 'end', node_type: 'end' },
  ],
  edges: [
    { source_node_id: 'start', target_node_id: 'mem', edge_mode: 'solid' },
    { source_node_id: 'mem', target_node_id: 'end', edge_mode: 'solid' },
  ],
};

async function rejects400(p: Promise<unknown>, path: RegExp): Promise<void> {
  await assert.rejects(p, (e) => {
    assert.ok(isNoemaError(e));
    assert.equal(e.code, 'INVALID_INPUT');
    assert.equal(e.status, 400);
    const errors = e.details.errors as Array<{ path: string }>;
    assert.ok(
      errors.some((x) => path.test(x.path)),
      JSON.stringify(errors),
    );
    return true;
  });
}

describeEachStore('flowchart graph save', (factory) => {
  test('create, list, get and delete a flowchart', async () =>
    factory.withStore(async ({ store }) => {
      const a = await createFlowchart(store, { name: 'A' });
      await createFlowchart(store, { name: 'B', flowchart_id: 'b-chart' });
      const page = await listFlowcharts(store, { limit: 1, offset: 1 });
      assert.equal(page.count, 2);
      assert.deepEqual(
        page.items.map((f) => f.flowchart_id),
        ['b-chart'],
      );
      await deleteFlowchart(store, a.flowchart_id);
      await assert.rejects(getGraph(store, a.flowchart_id), { code: 'UNKNOWN_FLOWCHART' });
      await assert.rejects(createFlowchart(store, { name: 'dup', flowchart_id: 'b-chart' }), {
        code: 'CONFLICT',
      });
      await assert.rejects(createFlowchart(store, { name: '' }), { code: 'INVALID_INPUT' });
    }));

  test('structural violations are 400 and change nothing', async () =>
    factory.withStore(async ({ store }) => {
      const fc = await createFlowchart(store, { name: 'x', graph: ok });
      type G = { nodes: Array<Record<string, unknown>>; edges: Array<Record<string, unknown>> };
      const bad = (mut: (g: G) => void) => {
        const g = structuredClone(ok) as G;
        mut(g);
        return saveGraph(store, fc.flowchart_id, g);
      };
      await rejects400(saveGraph(store, fc.flowchart_id, { nodes: [] }), /^$/);
      await rejects400(
        bad((g) => {
          g.edges[0]!.edge_mode = 'wavy';
        }),
        /edges\/0\/edge_mode/,
      );
      await rejects400(
        bad((g) => {
          g.nodes[0]!.id = 'bad id!';
        }),
        /nodes\/0\/id/,
      );
      await rejects400(
        bad((g) => {
          g.edges[0]!.target_node_id = 'ghost';
        }),
        /target_node_id/,
      );
      await rejects400(
        bad((g) => {
          g.nodes[1]!.config = {};
        }),
        /nodes\/1\/config\/action/,
      );
      await rejects400(
        bad((g) => {
          g.nodes[1]!.config = { action: 'add', mode: 'psychic' };
        }),
        /config\/mode/,
      );
      await rejects400(
        bad((g) => {
          g.nodes.push({ id: 'p', node_type: 'plan', config: { mode: 'deterministic' } });
        }),
        /nodes\/3\/config\/store_mode/,
      );
      await rejects400(
        bad((g) => {
          g.nodes.push({ id: 'p', node_type: 'plan', config: { store_mode: 'append' } });
        }),
        /nodes\/3\/config\/mode/,
      );
      await rejects400(
        bad((g) => {
          g.nodes.push({ id: 'l', node_type: 'llm', config: {} });
        }),
        /config\/prompt/,
      );
      const after = await getGraph(store, fc.flowchart_id);
      assert.equal(after.graph_revision, 1);
      assert.equal(after.nodes.length, 3);
    }));

  test('memory and plan configs are normalized and clamped on save', async () =>
    factory.withStore(async ({ store }) => {
      const fc = await createFlowchart(store, { name: 'n' });
      const g = await saveGraph(store, fc.flowchart_id, {
        nodes: [
          { id: 'start', node_type: 'start' },
          { id: 'm1', node_type: 'memory', config: { action: 'add', mcp_server_keys: ['evil'] } },
          {
            id: 'm2',
            node_type: 'memory',
            config: { action: 'retrieve', mode: 'Deterministic', retry_count: 99, fallback_enabled: false },
          },
          { id: 'm3', node_type: 'memory', config: { action: 'retrieve', mode: '', retry_count: -3 } },
          { id: 'p1', node_type: 'plan', config: { mode: 'llm-guided', store_mode: 'update' } },
          { id: 'end', node_type: 'end' },
        ],
        edges: [
          { source_node_id: 'start', target_node_id: 'm1', edge_mode: 'solid' },
          { source_node_id: 'm1', target_node_id: 'm2', edge_mode: 'solid' },
          { source_node_id: 'm2', target_node_id: 'm3', edge_mode: 'solid' },
          { source_node_id: 'm3', target_node_id: 'p1', edge_mode: 'solid' },
          { source_node_id: 'p1', target_node_id: 'end', edge_mode: 'solid' },
        ],
      });
      const c = Object.fromEntries(g.nodes.map((n) => [n.id, n.config]));
      assert.equal(c.m1!.mode, 'llm_guided');
      assert.equal(c.m1!.retry_count, 1);
      assert.equal(c.m1!.fallback_enabled, true);
      assert.deepEqual(c.m1!.mcp_server_keys, ['llmctl-mcp']);
      assert.equal(c.m2!.mode, 'deterministic');
      assert.equal(c.m2!.retry_count, 5);
      assert.equal(c.m2!.fallback_enabled, false);
      assert.equal(c.m3!.mode, 'llm_guided');
      assert.equal(c.m3!.retry_count, 0);
      assert.equal(c.p1!.mode, 'llm_guided');
      assert.equal(c.p1!.store_mode, 'update');
      assert.equal(c.p1!.retry_count, 1);
      assert.equal(c.p1!.fallback_enabled, true);
      assert.equal(c.p1!.retention_mode, 'forever');
      assert.equal(c.p1!.retention_ttl_seconds, 3600);
      assert.equal(c.p1!.retention_max_count, 25);
      assert.deepEqual(g.validation, { valid: true, errors: [] });
    }));

  test('semantic problems are saved with validation.valid false', async () =>
    factory.withStore(async ({ store }) => {
      const fc = await createFlowchart(store, { name: 's' });
      const g = await saveGraph(store, fc.flowchart_id, {
        nodes: [
          { id: 'start', node_type: 'start' },
          { id: 'd', node_type: 'decision' },
          { id: 'island', node_type: 'milestone', config: { action: 'mark_complete' } },
        ],
        edges: [
          { source_node_id: 'start', target_node_id: 'd', edge_mode: 'solid' },
          { source_node_id: 'd', target_node_id: 'island', edge_mode: 'dotted' },
        ],
      });
      assert.equal(g.validation.valid, false);
      const codes = g.validation.errors.map((e) => e.code).sort();
      assert.deepEqual(codes, ['DECISION_WITHOUT_CONNECTORS', 'NO_END', 'UNREACHABLE_NODE']);
      assert.equal(g.nodes.length, 3, 'the snapshot is stored anyway');
    }));

  test('decision conditions mirror the solid outgoing connectors', async () =>
    factory.withStore(async ({ store }) => {
      const fc = await createFlowchart(store, { name: 'd' });
      const g = await saveGraph(store, fc.flowchart_id, {
        nodes: [
          { id: 'start', node_type: 'start' },
          { id: 'd', node_type: 'decision', config: { conditions: [{ connector_id: 'stale' }] } },
          { id: 'a', node_type: 'end' },
          { id: 'b', node_type: 'end' },
          { id: 'c', node_type: 'end' },
        ],
        edges: [
          { source_node_id: 'start', target_node_id: 'd', edge_mode: 'solid' },
          {
            id: 'to-a',
            source_node_id: 'd',
            target_node_id: 'a',
            edge_mode: 'solid',
            condition_text: 'is it a?',
          },
          {
            id: 'to-b',
            source_node_id: 'd',
            target_node_id: 'b',
            edge_mode: 'solid',
            condition: { path: '/input/x', equals: 1 },
          },
          { id: 'ctx', source_node_id: 'd', target_node_id: 'c', edge_mode: 'dotted' },
        ],
      });
      const d = g.nodes.find((n) => n.id === 'd')!;
      const conds = d.config.conditions as Array<{ connector_id: string }>;
      assert.deepEqual(
        conds.map((c) => c.connector_id),
        ['to-a', 'to-b'],
      );
      assert.ok(g.validation.errors.some((e) => e.code === 'UNREACHABLE_NODE' && e.node_id === 'c'));
    }));
});
