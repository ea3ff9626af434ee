/** Task reads: tasks_context (bounded list), tasks_radar (one-screen snapshot), tasks_delta (events since a cursor). */
import { fitToBudget } from '../../core/budget.ts';
import { invalidInput } from '../../core/errors.ts';
import type { Queryable } from '../../store/store.ts';
import { normLimit, normMaxChars } from '../reasoning/docs/params.ts';
import { reasoningRef } from '../reasoning/targets.ts';
import { requireWorkspace } from '../reasoning/workspaces.ts';
import { eventsAfter } from './events.ts';
import { listTasks, requireTask } from './store-ops.ts';
import { assertStatus } from './validate.ts';

function normAfter(v: unknown): number {
  if (v === undefined || v === null) return 0;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) {
    throw invalidInput('cursor must be a non-negative integer (a next_cursor from a previous call)', {
      field: 'cursor',
    });
  }
  return v;
}

export async function tasksContext(
  q: Queryable,
  input: {
    workspace: string;
    plan?: string;
    status?: string;
    cursor?: number | null;
    limit?: number;
    max_chars?: number;
  },
): Promise<Record<string, unknown>> {
  const limit = normLimit(input.limit, 50, 500);
  const maxChars = normMaxChars(input.max_chars);
  const after = normAfter(input.cursor);
  const status = assertStatus(input.status);
  await requireWorkspace(q, input.workspace);
  if (input.plan !== undefined) await requireTask(q, input.workspace, input.plan);
  const filter: Parameters<typeof listTasks>[2] = { afterOrd: after, limit: limit + 1 };
  if (input.plan !== undefined) filter.plan = input.plan;
  if (status !== undefined) filter.status = status;
  const rows = await listTasks(q, input.workspace, filter);
  const hasMore = rows.length > limit;
  const items = rows.slice(0, limit).map((t) => ({
    id: t.id,
    kind: t.kind,
    plan: t.plan,
    title: t.title,
    status: t.status,
    revision: t.revision,
    updated_at_ms: t.updated_at_ms,
    ord: t.ord,
  }));
  return fitToBudget({
    items,
    maxChars,
    dropFrom: 'end',
    build: (kept, truncated) => {
      const more = hasMore || kept.length < items.length;
      const last = kept.at(-1);
      return {
        workspace: input.workspace,
        items: kept.map(({ ord: _ord, ...rest }) => rest),
        pagination: {
          cursor: input.cursor ?? null,
          ...(more ? { next_cursor: last ? last.ord : after } : {}),
          has_more: more,
          limit,
          count: kept.length,
        },
        truncated,
      };
    },
  }).value as Record<string, unknown>;
}

const RADAR_NOTES = 3;
const RADAR_STEPS = 20;

export async function tasksRadar(
  q: Queryable,
  input: { workspace: string; id: string; max_chars?: number },
): Promise<Record<string, unknown>> {
  const maxChars = normMaxChars(input.max_chars);
  await requireWorkspace(q, input.workspace);
  const task = await requireTask(q, input.workspace, input.id);
  const steps = await q.all<{ step_no: number; title: string; done: number }>(
    'SELECT step_no, title, done FROM task_steps WHERE workspace = ? AND task_id = ? ORDER BY step_no LIMIT ?',
    [input.workspace, task.id, RADAR_STEPS + 1],
  );
  const counts = await q.get<{ total: number; done: number | null }>(
    'SELECT COUNT(*) AS total, SUM(done) AS done FROM task_steps WHERE workspace = ? AND task_id = ?',
    [input.workspace, task.id],
  );
  const notes = await q.all<{ content: string; ts: number }>(
    'SELECT content, ts FROM task_notes WHERE workspace = ? AND task_id = ? ORDER BY id DESC LIMIT ?',
    [input.workspace, task.id, RADAR_NOTES],
  );
  const children =
    task.kind === 'plan'
      ? await q.all<{ status: string; n: number }>(
          'SELECT status, COUNT(*) AS n FROM tasks WHERE workspace = ? AND plan_id = ? GROUP BY status',
          [input.workspace, task.id],
        )
      : [];
  const lastEvent = await q.get<{ event_id: string; ts: number; type: string }>(
    'SELECT event_id, ts, type FROM task_events WHERE workspace = ? AND target = ? ORDER BY n DESC LIMIT 1',
    [input.workspace, task.id],
  );
  const stepItems = steps
    .slice(0, RADAR_STEPS)
    .map((s) => ({ step: Number(s.step_no), title: s.title, done: Number(s.done) === 1 }));
  const base = {
    workspace: input.workspace,
    target: task,
    reasoning_ref: reasoningRef(task.id),
    steps: {
      total: Number(counts?.total ?? 0),
      done: Number(counts?.done ?? 0),
      next: stepItems.find((s) => !s.done) ?? null,
    },
    ...(task.kind === 'plan'
      ? { tasks_by_status: Object.fromEntries(children.map((c) => [c.status, Number(c.n)])) }
      : {}),
    last_event: lastEvent
      ? { event_id: lastEvent.event_id, ts: Number(lastEvent.ts), type: lastEvent.type }
      : null,
  };
  // Items in drop order: step list first, then older notes; the core snapshot always stays.
  type Item =
    | { kind: 'note'; v: { content: string; ts: number } }
    | { kind: 'step'; v: (typeof stepItems)[number] };
  const items: Item[] = [
    ...notes.map((n) => ({ kind: 'note' as const, v: { content: n.content, ts: Number(n.ts) } })),
    ...stepItems.map((s) => ({ kind: 'step' as const, v: s })),
  ];
  return fitToBudget({
    items,
    maxChars,
    dropFrom: 'end',
    build: (kept, truncated) => ({
      ...base,
      step_list: kept.filter((i) => i.kind === 'step').map((i) => i.v),
      recent_notes: kept.filter((i) => i.kind === 'note').map((i) => i.v),
      truncated: truncated || steps.length > RADAR_STEPS,
    }),
  }).value as Record<string, unknown>;
}

export async function tasksDelta(
  q: Queryable,
  input: { workspace: string; cursor?: number | null; limit?: number; max_chars?: number },
): Promise<Record<string, unknown>> {
  const limit = normLimit(input.limit, 100, 1000);
  const maxChars = normMaxChars(input.max_chars);
  const after = normAfter(input.cursor);
  await requireWorkspace(q, input.workspace);
  const rows = await eventsAfter(q, input.workspace, after, limit + 1);
  const hasMore = rows.length > limit;
  const events = rows.slice(0, limit);
  return fitToBudget({
    items: events,
    maxChars,
    dropFrom: 'end',
    build: (kept, truncated) => {
      const last = kept.at(-1);
      return {
        workspace: input.workspace,
        events: kept.map((e) => ({
          cursor: e.n,
          event_id: e.event_id,
          ts: e.ts,
          type: e.type,
          target: e.target,
          payload: e.payload,
        })),
        pagination: {
          cursor: after,
          next_cursor: last ? last.n : after,
          has_more: hasMore || kept.length < events.length,
          limit,
          count: kept.length,
        },
        truncated,
      };
    },
  }).value as Record<string, unknown>;
}
