// Specs of the task surface on both stores: ids, revisions, steps, notes, reads, the event stream,
// and automatic ingestion of every mutation into the entity's trace doc (idempotent on event_id).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Store } from '../../store/store.ts';
import { describeEachStore } from '../../testing/each-store.ts';
import { exportSnapshot } from '../reasoning/docs/export.ts';
import { ingestEvent } from '../reasoning/docs/ingest.ts';
import { notesCommit } from '../reasoning/docs/notes.ts';
import { show } from '../reasoning/docs/show.ts';
import { init, status } from '../reasoning/workspace-ops.ts';
import { describeTarget } from './describe.ts';
import { reingestEvents } from './events.ts';
import { tasksCreate, tasksDecompose, tasksDone, tasksEdit, tasksNote } from './mutate.ts';
import { tasksContext, tasksDelta, tasksRadar } from './read.ts';

const W = 'ws';

async function rejects(p: Promise<unknown>, code: string): Promise<void> {
  await assert.rejects(p, (e: { code?: string }) => {
    assert.equal(e.code, code);
    return true;
  });
}

type Delta = {
  events: Array<{ event_id: string; type: string; target: string; cursor: number }>;
  pagination: { next_cursor: number; has_more: boolean };
};

describeEachStore('tasks', (factory) => {
  const withStore = (name: string, fn: (store: Store) => Promise<void>) =>
    test(name, async () => {
      const { store, dispose } = await factory.open();
      try {
        await init(store, { workspace: W });
        await fn(store);
      } finally {
        await dispose();
      }
    });

  withStore('plans and tasks get PLAN-###/TASK-### ids per workspace', async (store) => {
    const p = await tasksCreate(store, { workspace: W, kind: 'plan', title: 'Plan' });
    const t1 = await tasksCreate(store, { workspace: W, kind: 'task', title: 'T1', plan: p.task.id });
    const t2 = await tasksCreate(store, { workspace: W, kind: 'task', title: 'T2', plan: p.task.id });
    assert.deepEqual([p.task.id, t1.task.id, t2.task.id], ['PLAN-001', 'TASK-001', 'TASK-002']);
    assert.deepEqual(t1.reasoning_ref, {
      branch: 'task/TASK-001',
      notes_doc: 'notes',
      trace_doc: 'TASK-001-trace',
      graph_doc: 'TASK-001-graph',
    });
    await init(store, { workspace: 'other' });
    const o = await tasksCreate(store, { workspace: 'other', kind: 'plan', title: 'Other' });
    assert.equal(o.task.id, 'PLAN-001');
    await rejects(tasksCreate(store, { workspace: W, kind: 'task', title: 'orphan' }), 'INVALID_INPUT');
    await rejects(
      tasksCreate(store, { workspace: W, kind: 'task', title: 'x', plan: 'PLAN-009' }),
      'UNKNOWN_TARGET',
    );
    await rejects(
      tasksCreate(store, { workspace: W, kind: 'task', title: 'x', plan: 'TASK-001' }),
      'INVALID_INPUT',
    );
    await rejects(tasksCreate(store, { workspace: 'never', kind: 'plan', title: 'x' }), 'UNKNOWN_WORKSPACE');
  });

  withStore(
    'edit needs the current revision; a stale one is REVISION_MISMATCH and changes nothing',
    async (store) => {
      await tasksCreate(store, { workspace: W, kind: 'plan', title: 'P' });
      const e1 = await tasksEdit(store, {
        workspace: W,
        id: 'PLAN-001',
        expected_revision: 1,
        status: 'in_progress',
      });
      assert.equal(e1.task.revision, 2);
      assert.equal(e1.task.status, 'in_progress');
      await rejects(
        tasksEdit(store, { workspace: W, id: 'PLAN-001', expected_revision: 1, title: 'stale' }),
        'REVISION_MISMATCH',
      );
      const radar = (await tasksRadar(store, { workspace: W, id: 'PLAN-001' })) as {
        target: { title: string; revision: number };
      };
      assert.equal(radar.target.title, 'P');
      assert.equal(radar.target.revision, 2);
      await rejects(
        tasksEdit(store, { workspace: W, id: 'PLAN-001', expected_revision: 2 }),
        'INVALID_INPUT',
      );
      await rejects(
        tasksEdit(store, { workspace: W, id: 'PLAN-001', expected_revision: 2, status: 'bogus' }),
        'INVALID_INPUT',
      );
    },
  );

  withStore(
    'decompose adds numbered steps; done marks a step or the task; radar shows progress',
    async (store) => {
      await tasksCreate(store, { workspace: W, kind: 'plan', title: 'P' });
      await tasksCreate(store, { workspace: W, kind: 'task', title: 'T', plan: 'PLAN-001' });
      const d = await tasksDecompose(store, {
        workspace: W,
        id: 'TASK-001',
        steps: [{ title: 's1' }, { title: 's2' }],
      });
      assert.deepEqual(
        d.steps.map((s) => s.step),
        [1, 2],
      );
      await tasksDone(store, { workspace: W, id: 'TASK-001', step: 1 });
      await rejects(tasksDone(store, { workspace: W, id: 'TASK-001', step: 9 }), 'UNKNOWN_STEP');
      await tasksNote(store, { workspace: W, id: 'TASK-001', content: 'progress' });
      const r = (await tasksRadar(store, { workspace: W, id: 'TASK-001' })) as {
        steps: { total: number; done: number; next: { step: number } };
        recent_notes: Array<{ content: string }>;
        reasoning_ref: { branch: string };
        truncated: boolean;
      };
      assert.deepEqual([r.steps.total, r.steps.done, r.steps.next.step], [2, 1, 2]);
      assert.equal(r.recent_notes[0]?.content, 'progress');
      assert.equal(r.reasoning_ref.branch, 'task/TASK-001');
      assert.equal(r.truncated, false);
      const done = await tasksDone(store, { workspace: W, id: 'TASK-001' });
      assert.equal(done.task.status, 'done');
      const plan = (await tasksRadar(store, { workspace: W, id: 'PLAN-001' })) as {
        tasks_by_status: Record<string, number>;
      };
      assert.deepEqual(plan.tasks_by_status, { done: 1 });
    },
  );

  withStore(
    'every mutation emits one event and writes its event_id as a trace entry of the canonical branch',
    async (store) => {
      await tasksCreate(store, { workspace: W, kind: 'plan', title: 'P' });
      await tasksCreate(store, { workspace: W, kind: 'task', title: 'T', plan: 'PLAN-001' });
      await tasksEdit(store, { workspace: W, id: 'TASK-001', expected_revision: 1, title: 'T!' });
      await tasksDecompose(store, { workspace: W, id: 'TASK-001', steps: [{ title: 's' }] });
      await tasksNote(store, { workspace: W, id: 'TASK-001', content: 'n' });
      await tasksDone(store, { workspace: W, id: 'TASK-001', step: 1 });
      await tasksDone(store, { workspace: W, id: 'TASK-001' });
      await rejects(
        tasksEdit(store, { workspace: W, id: 'TASK-001', expected_revision: 1, title: 'x' }),
        'REVISION_MISMATCH',
      );
      const delta = (await tasksDelta(store, { workspace: W })) as Delta;
      assert.equal(delta.events.length, 7);
      assert.deepEqual(
        delta.events.map((e) => e.type),
        [
          'plan_created',
          'task_created',
          'task_edited',
          'task_decomposed',
          'task_noted',
          'task_step_done',
          'task_done',
        ],
      );
      const trace = await show(store, { workspace: W, target: 'TASK-001', doc_kind: 'trace', limit: 50 });
      assert.equal(trace.branch, 'task/TASK-001');
      assert.equal(trace.doc, 'TASK-001-trace');
      assert.deepEqual(
        trace.entries.map((e) => e.source_event_id).reverse(),
        delta.events.filter((e) => e.target === 'TASK-001').map((e) => e.event_id),
      );
      assert.ok(trace.entries.every((e) => e.kind === 'trace'));
      const planTrace = await show(store, { workspace: W, target: 'PLAN-001', doc_kind: 'trace' });
      assert.equal(planTrace.entries.length, 1);
      const s = await status(store, { workspace: W });
      assert.equal(s.last_event_id, delta.events.at(-1)?.event_id);
    },
  );

  withStore('ingesting the same event_id twice never duplicates', async (store) => {
    await tasksCreate(store, { workspace: W, kind: 'plan', title: 'P' });
    const ev = { event_id: 'evt-1', ts: Date.now(), type: 'plan_noted', target: 'PLAN-001', payload: {} };
    const first = await store.transaction((tx) => ingestEvent(tx, W, ev));
    const second = await store.transaction((tx) => ingestEvent(tx, W, ev));
    assert.equal(first.inserted, true);
    assert.equal(second.inserted, false);
    assert.equal(second.entry.seq, first.entry.seq);
    assert.equal(await store.transaction((tx) => reingestEvents(tx, W, 0, 100)), 0);
    const trace = await show(store, { workspace: W, target: 'PLAN-001', doc_kind: 'trace' });
    assert.equal(trace.entries.length, 2);
  });

  withStore('delta pages by cursor; context lists bounded with filters', async (store) => {
    await tasksCreate(store, { workspace: W, kind: 'plan', title: 'P' });
    for (let i = 0; i < 4; i++)
      await tasksCreate(store, { workspace: W, kind: 'task', title: `T${i}`, plan: 'PLAN-001' });
    await tasksEdit(store, { workspace: W, id: 'TASK-002', expected_revision: 1, status: 'blocked' });
    const p1 = (await tasksDelta(store, { workspace: W, limit: 4 })) as Delta;
    assert.equal(p1.events.length, 4);
    assert.equal(p1.pagination.has_more, true);
    const p2 = (await tasksDelta(store, { workspace: W, cursor: p1.pagination.next_cursor })) as Delta;
    assert.equal(p2.events.length, 2);
    assert.equal(p2.pagination.has_more, false);
    const empty = (await tasksDelta(store, { workspace: W, cursor: p2.pagination.next_cursor })) as Delta;
    assert.equal(empty.events.length, 0);
    assert.equal(empty.pagination.next_cursor, p2.pagination.next_cursor);
    type Ctx = { items: Array<{ id: string }>; pagination: { has_more: boolean; next_cursor?: number } };
    const c1 = (await tasksContext(store, { workspace: W, limit: 3 })) as Ctx;
    assert.deepEqual(
      c1.items.map((i) => i.id),
      ['PLAN-001', 'TASK-001', 'TASK-002'],
    );
    const c2 = (await tasksContext(store, {
      workspace: W,
      cursor: c1.pagination.next_cursor ?? null,
    })) as Ctx;
    assert.deepEqual(
      c2.items.map((i) => i.id),
      ['TASK-003', 'TASK-004'],
    );
    const blocked = (await tasksContext(store, { workspace: W, status: 'blocked' })) as Ctx;
    assert.deepEqual(
      blocked.items.map((i) => i.id),
      ['TASK-002'],
    );
    const small = (await tasksContext(store, { workspace: W, max_chars: 300 })) as Ctx & {
      truncated: boolean;
    };
    assert.equal(small.truncated, true);
    assert.ok(JSON.stringify(small).length <= 300);
  });

  withStore(
    'targets work in branchmind tools; export bundles metadata, refs, notes and trace tails',
    async (store) => {
      await tasksCreate(store, { workspace: W, kind: 'plan', title: 'P' });
      await tasksCreate(store, { workspace: W, kind: 'task', title: 'T', plan: 'PLAN-001' });
      const n = await notesCommit(store, { workspace: W, target: 'TASK-001', content: 'decided X' });
      assert.equal(n.entry.branch, 'task/TASK-001');
      assert.equal(n.entry.doc, 'notes');
      await rejects(notesCommit(store, { workspace: W, target: 'TASK-404', content: 'x' }), 'UNKNOWN_TARGET');
      const ex = (await exportSnapshot(store, { workspace: W, target: 'TASK-001' }, describeTarget)) as {
        target: { id: string; title: string };
        notes: { entries: Array<{ content: string }> };
        trace: { entries: unknown[] };
        truncated: boolean;
      };
      assert.equal(ex.target.title, 'T');
      assert.deepEqual(
        ex.notes.entries.map((e) => e.content),
        ['decided X'],
      );
      assert.equal(ex.trace.entries.length, 1);
      assert.equal(ex.truncated, false);
      const small = (await exportSnapshot(
        store,
        { workspace: W, target: 'TASK-001', max_chars: 900 },
        describeTarget,
      )) as {
        truncated: boolean;
        notes: { entries: unknown[]; pagination: { has_more: boolean } };
        trace: { entries: unknown[] };
      };
      assert.ok(JSON.stringify(small).length <= 900);
      assert.equal(small.truncated, true);
      await rejects(
        exportSnapshot(store, { workspace: W, target: 'TASK-001', max_chars: 50 }, describeTarget),
        'BUDGET_TOO_SMALL',
      );
      await rejects(
        exportSnapshot(store, { workspace: W, target: 'PLAN-404' }, describeTarget),
        'UNKNOWN_TARGET',
      );
    },
  );
});
