import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isNoemaError } from '../../../core/errors.ts';
import type { Store } from '../../../store/store.ts';
import { describeEachStore } from '../../../testing/each-store.ts';
import { branchCreate } from '../branch-ops.ts';
import { init } from '../workspace-ops.ts';
import { graphApply } from './apply.ts';
import { graphConflictResolve, graphConflictShow, graphConflicts } from './conflicts.ts';
import { graphDiff } from './diff.ts';
import { graphMerge } from './merge.ts';
import { graphQuery } from './query.ts';

const WS = 'ws';
const DOC = 'g';
const on = (branch: string) => ({ workspace: WS, branch, doc: DOC });
const up = (id: string, title: string) => ({ op: 'node_upsert', id, type: 'hypothesis', title });

async function rejectsWith(p: Promise<unknown>, code: string): Promise<void> {
  await assert.rejects(p, (e: unknown) => isNoemaError(e) && e.code === code);
}

async function counts(store: Store): Promise<{ versions: number; conflicts: number }> {
  const v = await store.get<{ n: number }>('SELECT COUNT(*) AS n FROM graph_nodes');
  const e = await store.get<{ n: number }>('SELECT COUNT(*) AS n FROM graph_edges');
  const c = await store.get<{ n: number }>('SELECT COUNT(*) AS n FROM graph_conflicts');
  return { versions: Number(v?.n) + Number(e?.n), conflicts: Number(c?.n) };
}

async function titles(store: Store, branch: string): Promise<Record<string, string | null>> {
  const q = await graphQuery(store, on(branch));
  return Object.fromEntries(q.nodes.map((n) => [n.id, n.title ?? null]));
}

/** main has a, b, c; branch `f` forks; then both sides change things. */
async function forked(store: Store): Promise<void> {
  await init(store, { workspace: WS });
  await graphApply(store, { ...on('main'), ops: [up('a', 'a0'), up('b', 'b0'), up('c', 'c0')] });
  await branchCreate(store, { workspace: WS, name: 'f', from: 'main' });
}

describeEachStore('graph diff and merge', (factory) => {
  test('graph_diff is directional and includes tombstones', async () => {
    const { store, dispose } = await factory.open();
    try {
      await forked(store);
      await graphApply(store, {
        ...on('f'),
        ops: [
          up('a', 'a1'),
          up('n', 'new'),
          { op: 'node_delete', id: 'b' },
          { op: 'edge_upsert', from: 'a', rel: 'supports', to: 'n' },
        ],
      });
      await graphApply(store, { ...on('main'), ops: [up('m', 'main-only')] });
      const d = await graphDiff(store, { workspace: WS, from: 'main', to: 'f', doc: DOC });
      assert.deepEqual(
        d.changes.map((c) =>
          c.kind === 'node'
            ? `${c.id}:${c.to.deleted ? 'deleted' : c.to.title}`
            : `edge:${c.key.from}-${c.key.to}`,
        ),
        ['edge:a-n', 'b:deleted', 'n:new', 'a:a1'],
      );
      const back = await graphDiff(store, { workspace: WS, from: 'f', to: 'main', doc: DOC });
      assert.deepEqual(
        back.changes.map((c) => (c.kind === 'node' ? `${c.id}:${c.to.title}` : 'edge')),
        ['m:main-only', 'b:b0', 'a:a0'],
      );
      const page = await graphDiff(store, { workspace: WS, from: 'main', to: 'f', doc: DOC, limit: 3 });
      assert.equal(page.pagination.has_more, true);
      const rest = await graphDiff(store, {
        workspace: WS,
        from: 'main',
        to: 'f',
        doc: DOC,
        cursor: page.pagination.next_cursor,
      });
      assert.deepEqual(
        rest.changes.map((c) => (c.kind === 'node' ? c.id : 'edge')),
        ['a'],
      );
      assert.equal(rest.pagination.has_more, false);
      assert.deepEqual((await graphDiff(store, { workspace: WS, from: 'f', to: 'f', doc: DOC })).changes, []);
    } finally {
      await dispose();
    }
  });

  test('merge applies keys changed on from when into did not touch them', async () => {
    const { store, dispose } = await factory.open();
    try {
      await forked(store);
      await graphApply(store, {
        ...on('f'),
        ops: [
          up('a', 'a1'),
          up('n', 'new'),
          { op: 'node_delete', id: 'c' },
          { op: 'edge_upsert', from: 'a', rel: 'supports', to: 'n' },
        ],
      });
      await graphApply(store, { ...on('main'), ops: [up('m', 'main-only')] });
      const r = await graphMerge(store, { workspace: WS, from: 'f', into: 'main', doc: DOC });
      assert.deepEqual([r.merged, r.skipped, r.conflicts_created], [4, 0, 0]);
      assert.deepEqual(await titles(store, 'main'), { a: 'a1', n: 'new', m: 'main-only', b: 'b0' });
      const q = await graphQuery(store, on('main'));
      assert.deepEqual(
        q.edges.map((e) => `${e.from}-${e.rel}-${e.to}`),
        ['a-supports-n'],
      );
      assert.deepEqual(
        (await graphDiff(store, { workspace: WS, from: 'main', to: 'f', doc: DOC })).changes,
        [],
      );
    } finally {
      await dispose();
    }
  });

  test('merge is idempotent when repeated: no second version, no second conflict', async () => {
    const { store, dispose } = await factory.open();
    try {
      await forked(store);
      await graphApply(store, { ...on('f'), ops: [up('a', 'a-from'), up('b', 'b-from')] });
      await graphApply(store, { ...on('main'), ops: [up('a', 'a-into')] });
      const first = await graphMerge(store, { workspace: WS, from: 'f', into: 'main', doc: DOC });
      assert.deepEqual([first.merged, first.skipped, first.conflicts_created], [1, 1, 1]);
      const after = await counts(store);
      const again = await graphMerge(store, { workspace: WS, from: 'f', into: 'main', doc: DOC });
      assert.deepEqual([again.merged, again.skipped, again.conflicts_created], [0, 2, 0]);
      assert.deepEqual(again.conflict_ids, first.conflict_ids);
      assert.deepEqual(await counts(store), after);
      assert.deepEqual(await titles(store, 'main'), { a: 'a-into', b: 'b-from', c: 'c0' });
    } finally {
      await dispose();
    }
  });

  test('a later change on from after a merge fast-forwards instead of conflicting', async () => {
    const { store, dispose } = await factory.open();
    try {
      await forked(store);
      await graphApply(store, { ...on('f'), ops: [up('a', 'a1')] });
      await graphMerge(store, { workspace: WS, from: 'f', into: 'main', doc: DOC });
      await graphApply(store, { ...on('f'), ops: [up('a', 'a2')] });
      const r = await graphMerge(store, { workspace: WS, from: 'f', into: 'main', doc: DOC });
      assert.deepEqual([r.merged, r.conflicts_created], [1, 0]);
      assert.equal((await titles(store, 'main')).a, 'a2');
    } finally {
      await dispose();
    }
  });

  test('dry_run discovers outcomes without writing', async () => {
    const { store, dispose } = await factory.open();
    try {
      await forked(store);
      await graphApply(store, { ...on('f'), ops: [up('a', 'a-from'), up('b', 'b-from')] });
      await graphApply(store, { ...on('main'), ops: [up('a', 'a-into')] });
      const before = await counts(store);
      const dry = await graphMerge(store, {
        workspace: WS,
        from: 'f',
        into: 'main',
        doc: DOC,
        dry_run: true,
      });
      assert.deepEqual([dry.merged, dry.skipped, dry.conflicts_created, dry.dry_run], [1, 1, 1, true]);
      assert.deepEqual(await counts(store), before);
      const real = await graphMerge(store, { workspace: WS, from: 'f', into: 'main', doc: DOC });
      assert.deepEqual(real.conflict_ids, dry.conflict_ids);
    } finally {
      await dispose();
    }
  });

  test('merge paginates over the changed keys', async () => {
    const { store, dispose } = await factory.open();
    try {
      await forked(store);
      for (let i = 0; i < 5; i++) await graphApply(store, { ...on('f'), ops: [up(`k${i}`, 'x')] });
      let cursor: number | undefined;
      let merged = 0;
      for (let i = 0; i < 5; i++) {
        const r = await graphMerge(store, {
          workspace: WS,
          from: 'f',
          into: 'main',
          doc: DOC,
          limit: 2,
          ...(cursor ? { cursor } : {}),
        });
        merged += r.merged;
        if (!r.pagination.has_more) break;
        cursor = r.pagination.next_cursor;
      }
      assert.equal(merged, 5);
      assert.equal(Object.keys(await titles(store, 'main')).length, 8);
    } finally {
      await dispose();
    }
  });

  test('merge only goes back into the base branch', async () => {
    const { store, dispose } = await factory.open();
    try {
      await forked(store);
      await branchCreate(store, { workspace: WS, name: 'other', from: 'main' });
      await rejectsWith(
        graphMerge(store, { workspace: WS, from: 'f', into: 'other', doc: DOC }),
        'MERGE_NOT_SUPPORTED',
      );
      await rejectsWith(
        graphMerge(store, { workspace: WS, from: 'main', into: 'f', doc: DOC }),
        'MERGE_NOT_SUPPORTED',
      );
      await rejectsWith(
        graphMerge(store, { workspace: WS, from: 'ghost', into: 'main', doc: DOC }),
        'UNKNOWN_BRANCH',
      );
    } finally {
      await dispose();
    }
  });

  test('conflicts carry base/theirs/ours snapshots; use_from writes theirs, use_into only resolves', async () => {
    const { store, dispose } = await factory.open();
    try {
      await forked(store);
      await graphApply(store, {
        ...on('f'),
        ops: [
          up('a', 'a-from'),
          up('b', 'b-from'),
          { op: 'edge_upsert', from: 'a', rel: 'r', to: 'b', meta: { w: 1 } },
        ],
      });
      await graphApply(store, {
        ...on('main'),
        ops: [
          up('a', 'a-into'),
          up('b', 'b-into'),
          { op: 'edge_upsert', from: 'a', rel: 'r', to: 'b', meta: { w: 2 } },
        ],
      });
      const r = await graphMerge(store, { workspace: WS, from: 'f', into: 'main', doc: DOC });
      assert.equal(r.conflicts_created, 3);
      const list = await graphConflicts(store, { workspace: WS, into: 'main', doc: DOC });
      assert.equal(list.conflicts.length, 3);
      const byKey = new Map(list.conflicts.map((c) => [JSON.stringify(c.key), c.conflict_id]));
      const aId = byKey.get('"a"')!;
      const shown = (await graphConflictShow(store, { workspace: WS, conflict_id: aId })).conflict;
      assert.equal(shown.kind, 'node');
      assert.equal(shown.status, 'open');
      assert.deepEqual([shown.from, shown.into, shown.doc], ['f', 'main', DOC]);
      assert.equal((shown.base as { title: string }).title, 'a0');
      assert.equal((shown.theirs as { title: string }).title, 'a-from');
      assert.equal((shown.ours as { title: string }).title, 'a-into');

      const resolved = await graphConflictResolve(store, {
        workspace: WS,
        conflict_id: aId,
        resolution: 'use_from',
      });
      assert.deepEqual([resolved.status, resolved.applied], ['resolved', true]);
      const bId = byKey.get('"b"')!;
      const kept = await graphConflictResolve(store, {
        workspace: WS,
        conflict_id: bId,
        resolution: 'use_into',
      });
      assert.deepEqual([kept.status, kept.applied], ['resolved', false]);
      assert.deepEqual(await titles(store, 'main'), { a: 'a-from', b: 'b-into', c: 'c0' });
      const edgeId = byKey.get(JSON.stringify({ from: 'a', rel: 'r', to: 'b' }))!;
      await graphConflictResolve(store, { workspace: WS, conflict_id: edgeId, resolution: 'use_from' });
      assert.deepEqual((await graphQuery(store, on('main'))).edges[0]!.meta, { w: 1 });

      const open = await graphConflicts(store, { workspace: WS, into: 'main', doc: DOC, status: 'open' });
      assert.equal(open.conflicts.length, 0);
      const done = (await graphConflictShow(store, { workspace: WS, conflict_id: bId })).conflict;
      assert.equal(done.status, 'resolved');
      assert.equal(typeof done.resolved_at_ms, 'number');

      const before = await counts(store);
      const again = await graphMerge(store, { workspace: WS, from: 'f', into: 'main', doc: DOC });
      assert.equal(again.conflicts_created, 0);
      assert.equal(again.merged, 0);
      assert.deepEqual(await counts(store), before);
      const twice = await graphConflictResolve(store, {
        workspace: WS,
        conflict_id: aId,
        resolution: 'use_from',
      });
      assert.equal(twice.applied, false);
      assert.deepEqual(await counts(store), before);
    } finally {
      await dispose();
    }
  });

  test('unknown conflicts and bad resolutions are typed errors', async () => {
    const { store, dispose } = await factory.open();
    try {
      await init(store, { workspace: WS });
      await rejectsWith(
        graphConflictShow(store, { workspace: WS, conflict_id: 'conflict-nope' }),
        'UNKNOWN_CONFLICT',
      );
      await rejectsWith(
        graphConflictResolve(store, { workspace: WS, conflict_id: 'conflict-nope', resolution: 'use_from' }),
        'UNKNOWN_CONFLICT',
      );
      await rejectsWith(
        graphConflictResolve(store, { workspace: WS, conflict_id: 'x', resolution: 'both' }),
        'INVALID_INPUT',
      );
      await rejectsWith(
        graphConflicts(store, { workspace: WS, into: 'main', status: 'weird' }),
        'INVALID_INPUT',
      );
      await rejectsWith(graphConflicts(store, { workspace: WS, into: 'ghost' }), 'UNKNOWN_BRANCH');
    } finally {
      await dispose();
    }
  });
});
