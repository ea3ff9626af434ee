import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isNoemaError } from '../../../core/errors.ts';
import type { Store } from '../../../store/store.ts';
import { describeEachStore } from '../../../testing/each-store.ts';
import { branchCreate } from '../branch-ops.ts';
import { registerTarget } from '../targets.ts';
import { init } from '../workspace-ops.ts';
import { graphApply } from './apply.ts';
import { graphQuery } from './query.ts';
import { graphValidate } from './validate-view.ts';

const WS = 'ws';
const at = { workspace: WS, branch: 'main', doc: 'g' };

async function rejectsWith(p: Promise<unknown>, code: string): Promise<void> {
  await assert.rejects(p, (e: unknown) => isNoemaError(e) && e.code === code);
}

async function versionCount(store: Store): Promise<number> {
  const a = await store.get<{ n: number }>('SELECT COUNT(*) AS n FROM graph_nodes');
  const b = await store.get<{ n: number }>('SELECT COUNT(*) AS n FROM graph_edges');
  return Number(a?.n) + Number(b?.n);
}

const up = (id: string, extra: Record<string, unknown> = {}) => ({
  op: 'node_upsert',
  id,
  type: 'hypothesis',
  ...extra,
});

describeEachStore('graph apply and query', (factory) => {
  test('every op writes a new version with an increasing seq; the latest version wins', async () => {
    const { store, dispose } = await factory.open();
    try {
      await init(store, { workspace: WS });
      const a = await graphApply(store, {
        ...at,
        ops: [up('h1', { title: 'one' }), up('h1', { title: 'two' })],
      });
      assert.deepEqual(a.applied, {
        nodes_upserted: 2,
        nodes_deleted: 0,
        edges_upserted: 0,
        edges_deleted: 0,
      });
      const b = await graphApply(store, { ...at, ops: [up('h1', { title: 'three' })] });
      assert.ok(b.last_seq > a.last_seq);
      assert.equal(await versionCount(store), 3);
      const q = await graphQuery(store, at);
      assert.equal(q.nodes.length, 1);
      assert.equal(q.nodes[0]!.title, 'three');
      assert.equal(q.nodes[0]!.last_seq, b.last_seq);
    } finally {
      await dispose();
    }
  });

  test('graph_apply is atomic: one invalid op applies nothing', async () => {
    const { store, dispose } = await factory.open();
    try {
      await init(store, { workspace: WS });
      await rejectsWith(graphApply(store, { ...at, ops: [up('ok'), up('task:1')] }), 'INVALID_INPUT');
      await rejectsWith(
        graphApply(store, { ...at, ops: [up('ok'), { op: 'edge_upsert', from: 'a', rel: 'x|y', to: 'b' }] }),
        'INVALID_INPUT',
      );
      assert.equal(await versionCount(store), 0);
      await rejectsWith(
        graphApply(store, { ...at, workspace: 'nope', ops: [up('ok')] }),
        'UNKNOWN_WORKSPACE',
      );
      await rejectsWith(graphApply(store, { ...at, branch: 'nope', ops: [up('ok')] }), 'UNKNOWN_BRANCH');
      await rejectsWith(
        graphApply(store, { workspace: WS, target: 'TASK-404', ops: [up('ok')] }),
        'UNKNOWN_TARGET',
      );
      assert.equal(await versionCount(store), 0);
    } finally {
      await dispose();
    }
  });

  test('a target resolves to its canonical branch and graph doc', async () => {
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
      const a = await graphApply(store, { workspace: WS, target: 'TASK-001', ops: [up('h1')] });
      assert.equal(a.branch, 'task/TASK-001');
      assert.equal(a.doc, 'TASK-001-graph');
      const q = await graphQuery(store, { workspace: WS, target: 'TASK-001' });
      assert.deepEqual(
        q.nodes.map((n) => n.id),
        ['h1'],
      );
    } finally {
      await dispose();
    }
  });

  test('deletes are tombstones: the node leaves the view but keeps its history', async () => {
    const { store, dispose } = await factory.open();
    try {
      await init(store, { workspace: WS });
      await graphApply(store, { ...at, ops: [up('a'), up('b')] });
      await graphApply(store, { ...at, ops: [{ op: 'node_delete', id: 'a' }] });
      assert.deepEqual(
        (await graphQuery(store, at)).nodes.map((n) => n.id),
        ['b'],
      );
      assert.equal(await versionCount(store), 3);
      await graphApply(store, { ...at, ops: [up('a', { title: 'back' })] });
      assert.deepEqual(
        (await graphQuery(store, at)).nodes.map((n) => n.id),
        ['a', 'b'],
      );
    } finally {
      await dispose();
    }
  });

  test('filters: ids, types, status, tags_any, tags_all, text (case-insensitive, literal)', async () => {
    const { store, dispose } = await factory.open();
    try {
      await init(store, { workspace: WS });
      await graphApply(store, {
        ...at,
        ops: [
          up('h1', { title: 'Cache misses', status: 'open', tags: ['Perf', 'db'] }),
          {
            op: 'node_upsert',
            id: 'q1',
            type: 'question',
            text: 'why 100% CPU?',
            status: 'open',
            tags: ['perf'],
          },
          {
            op: 'node_upsert',
            id: 'e1',
            type: 'evidence',
            title: 'flame_graph',
            status: 'done',
            tags: ['db'],
          },
        ],
      });
      const ids = async (f: Record<string, unknown>) =>
        (await graphQuery(store, { ...at, ...f })).nodes.map((n) => n.id);
      assert.deepEqual(await ids({ ids: ['h1', 'e1', 'zz'] }), ['e1', 'h1']);
      assert.deepEqual(await ids({ types: ['question', 'evidence'] }), ['e1', 'q1']);
      assert.deepEqual(await ids({ status: 'open' }), ['q1', 'h1']);
      assert.deepEqual(await ids({ tags_any: ['PERF'] }), ['q1', 'h1']);
      assert.deepEqual(await ids({ tags_all: ['perf', 'db'] }), ['h1']);
      assert.deepEqual(await ids({ text: 'CACHE' }), ['h1']);
      assert.deepEqual(await ids({ text: '100%' }), ['q1']);
      assert.deepEqual(await ids({ text: 'flame_' }), ['e1']);
      assert.deepEqual(await ids({ text: 'flame%' }), []);
      assert.deepEqual(await ids({ types: ['question'], status: 'done' }), []);
    } finally {
      await dispose();
    }
  });

  test('recent-first cursor pagination is exact at every boundary', async () => {
    const { store, dispose } = await factory.open();
    try {
      await init(store, { workspace: WS });
      for (let i = 0; i < 7; i++) await graphApply(store, { ...at, ops: [up(`n${i}`)] });
      const seen: string[] = [];
      let cursor: number | undefined;
      for (let page = 0; page < 10; page++) {
        const q = await graphQuery(store, { ...at, limit: 3, ...(cursor === undefined ? {} : { cursor }) });
        seen.push(...q.nodes.map((n) => n.id));
        assert.equal(q.pagination.count, q.nodes.length);
        if (!q.pagination.has_more) {
          assert.equal(q.pagination.next_cursor, undefined);
          break;
        }
        cursor = q.pagination.next_cursor;
        assert.equal(cursor, q.nodes.at(-1)!.last_seq);
      }
      assert.deepEqual(seen, ['n6', 'n5', 'n4', 'n3', 'n2', 'n1', 'n0']);
      const exact = await graphQuery(store, { ...at, limit: 7 });
      assert.equal(exact.pagination.has_more, false);
    } finally {
      await dispose();
    }
  });

  test('edges connect only returned nodes and are bounded by edges_limit', async () => {
    const { store, dispose } = await factory.open();
    try {
      await init(store, { workspace: WS });
      await graphApply(store, {
        ...at,
        ops: [
          up('a'),
          up('b'),
          up('c'),
          { op: 'edge_upsert', from: 'a', rel: 'supports', to: 'b' },
          { op: 'edge_upsert', from: 'b', rel: 'blocks', to: 'c' },
          { op: 'edge_upsert', from: 'c', rel: 'supports', to: 'a' },
        ],
      });
      const two = await graphQuery(store, { ...at, ids: ['a', 'b'] });
      assert.deepEqual(
        two.edges.map((e) => `${e.from}-${e.to}`),
        ['a-b'],
      );
      const all = await graphQuery(store, at);
      assert.equal(all.edges.length, 3);
      assert.equal(all.truncated, false);
      const capped = await graphQuery(store, { ...at, edges_limit: 1 });
      assert.deepEqual(
        capped.edges.map((e) => `${e.from}-${e.to}`),
        ['c-a'],
      );
      assert.equal(capped.truncated, true);
      const none = await graphQuery(store, { ...at, include_edges: false });
      assert.deepEqual(none.edges, []);
      await graphApply(store, { ...at, ops: [{ op: 'edge_delete', from: 'c', rel: 'supports', to: 'a' }] });
      assert.equal((await graphQuery(store, at)).edges.length, 2);
    } finally {
      await dispose();
    }
  });

  test('max_chars drops the oldest nodes first and says so; too small is BUDGET_TOO_SMALL', async () => {
    const { store, dispose } = await factory.open();
    try {
      await init(store, { workspace: WS });
      for (let i = 0; i < 5; i++)
        await graphApply(store, { ...at, ops: [up(`n${i}`, { text: 'x'.repeat(200) })] });
      const full = await graphQuery(store, at);
      const size = JSON.stringify(full).length;
      const cut = await graphQuery(store, { ...at, max_chars: size - 100 });
      assert.equal(cut.truncated, true);
      assert.deepEqual(
        cut.nodes.map((n) => n.id),
        ['n4', 'n3', 'n2', 'n1'],
      );
      assert.ok(JSON.stringify(cut).length <= size - 100);
      assert.equal(cut.pagination.has_more, true);
      assert.equal(cut.pagination.next_cursor, cut.nodes.at(-1)!.last_seq);
      await rejectsWith(graphQuery(store, { ...at, max_chars: 20 }), 'BUDGET_TOO_SMALL');
    } finally {
      await dispose();
    }
  });

  test('graph_validate reports dangling edges, bounded by max_errors', async () => {
    const { store, dispose } = await factory.open();
    try {
      await init(store, { workspace: WS });
      await graphApply(store, {
        ...at,
        ops: [
          up('a'),
          up('b'),
          { op: 'edge_upsert', from: 'a', rel: 'supports', to: 'b' },
          { op: 'edge_upsert', from: 'a', rel: 'supports', to: 'ghost' },
          { op: 'edge_upsert', from: 'ghost', rel: 'blocks', to: 'b' },
        ],
      });
      const ok = await graphValidate(store, { ...at });
      assert.equal(ok.ok, false);
      assert.deepEqual(ok.stats, { nodes: 2, edges: 3 });
      assert.deepEqual(
        ok.errors.map((e) => e.missing),
        [['from'], ['to']],
      );
      const bounded = await graphValidate(store, { ...at, max_errors: 1 });
      assert.equal(bounded.errors.length, 1);
      assert.equal(bounded.truncated, true);
      await graphApply(store, { ...at, ops: [{ op: 'node_delete', id: 'b' }] });
      assert.equal((await graphValidate(store, at)).errors.length, 3);
      await graphApply(store, {
        ...at,
        ops: [
          up('b'),
          { op: 'edge_delete', from: 'a', rel: 'supports', to: 'ghost' },
          { op: 'edge_delete', from: 'ghost', rel: 'blocks', to: 'b' },
        ],
      });
      const clean = await graphValidate(store, at);
      assert.equal(clean.ok, true);
      assert.deepEqual(clean.errors, []);
    } finally {
      await dispose();
    }
  });

  test('a derived branch sees its base snapshot, not later base writes, and its own changes', async () => {
    const { store, dispose } = await factory.open();
    try {
      await init(store, { workspace: WS });
      await graphApply(store, { ...at, ops: [up('a', { title: 'base' }), up('b')] });
      await branchCreate(store, { workspace: WS, name: 'what-if', from: 'main' });
      await graphApply(store, { ...at, ops: [up('late'), up('a', { title: 'main later' })] });
      const br = { ...at, branch: 'what-if' };
      await graphApply(store, { ...br, ops: [up('own'), { op: 'node_delete', id: 'b' }] });
      const q = await graphQuery(store, br);
      assert.deepEqual(
        q.nodes.map((n) => [n.id, n.title ?? null]),
        [
          ['own', null],
          ['a', 'base'],
        ],
      );
      const main = await graphQuery(store, at);
      assert.deepEqual(
        main.nodes.map((n) => n.id),
        ['a', 'late', 'b'],
      );
      await branchCreate(store, { workspace: WS, name: 'deeper', from: 'what-if' });
      await graphApply(store, { ...br, ops: [up('after-deeper')] });
      const deep = await graphQuery(store, { ...at, branch: 'deeper' });
      assert.deepEqual(
        deep.nodes.map((n) => n.id),
        ['own', 'a'],
      );
      assert.deepEqual((await graphValidate(store, { ...at, branch: 'deeper' })).stats, {
        nodes: 2,
        edges: 0,
      });
    } finally {
      await dispose();
    }
  });
});
