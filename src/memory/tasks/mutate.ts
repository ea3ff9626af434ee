/**
 * Task mutations (tasks_create, tasks_edit, tasks_decompose, tasks_note, tasks_done). Each
 * validates first, then runs one transaction under the workspace lock and emits one event.
 */
import { invalidInput, NoemaError } from '../../core/errors.ts';
import type { Store, Transaction } from '../../store/store.ts';
import { assertContent } from '../reasoning/docs/validate.ts';
import { type ReasoningRef, reasoningRef, registerTarget } from '../reasoning/targets.ts';
import { requireWorkspace } from '../reasoning/workspaces.ts';
import { emitEvent } from './events.ts';
import { lockWorkspace, nextCounter, requireTask, type TaskRow, type TaskStatus } from './store-ops.ts';
import {
  assertDescription,
  assertRevision,
  assertStatus,
  assertTaskTitle,
  MAX_STEPS_PER_CALL,
} from './validate.ts';

export type MutationResult = {
  task: TaskRow;
  reasoning_ref: ReasoningRef;
  event_id: string;
};

async function mutation<T>(store: Store, workspace: string, fn: (tx: Transaction) => Promise<T>): Promise<T> {
  return await store.transaction(async (tx) => {
    await requireWorkspace(tx, workspace);
    await lockWorkspace(tx, workspace);
    return await fn(tx);
  });
}

function checkRevision(task: TaskRow, expected: number | undefined): void {
  if (expected !== undefined && expected !== task.revision) {
    throw new NoemaError('REVISION_MISMATCH', `${task.id} is at revision ${task.revision}, not ${expected}`, {
      details: { id: task.id, expected_revision: expected, current_revision: task.revision },
      hint: `re-read ${task.id} (tasks_radar) and retry with expected_revision ${task.revision}`,
      status: 409,
      retryable: true,
    });
  }
}

export async function tasksCreate(
  store: Store,
  input: { workspace: string; kind: 'plan' | 'task'; title: string; description?: string; plan?: string },
): Promise<MutationResult> {
  const title = assertTaskTitle(input.title);
  const description = assertDescription(input.description) ?? '';
  if (input.kind !== 'plan' && input.kind !== 'task')
    throw invalidInput('kind must be "plan" or "task"', { field: 'kind' });
  if (input.kind === 'task' && input.plan === undefined) {
    throw invalidInput(
      'a task is created under a plan: give plan',
      { field: 'plan' },
      'create a plan first with kind "plan"',
    );
  }
  if (input.kind === 'plan' && input.plan !== undefined)
    throw invalidInput('a plan has no parent plan', { field: 'plan' });
  return await mutation(store, input.workspace, async (tx) => {
    if (input.plan !== undefined) {
      const plan = await requireTask(tx, input.workspace, input.plan);
      if (plan.kind !== 'plan') throw invalidInput(`${input.plan} is a task, not a plan`, { field: 'plan' });
    }
    const prefix = input.kind === 'plan' ? 'PLAN' : 'TASK';
    const n = await nextCounter(tx, input.workspace, prefix);
    const id = `${prefix}-${String(n).padStart(3, '0')}`;
    const ord = await nextCounter(tx, input.workspace, 'ord');
    const now = Date.now();
    await tx.run(
      `INSERT INTO tasks (workspace, id, ord, kind, plan_id, title, description, status, revision, created_at_ms, updated_at_ms)
       VALUES (?, ?, ?, ?, ?, ?, ?, 'todo', 1, ?, ?)`,
      [input.workspace, id, ord, input.kind, input.plan ?? null, title, description, now, now],
    );
    await registerTarget(tx, input.workspace, id);
    const task = await requireTask(tx, input.workspace, id);
    const event = await emitEvent(tx, input.workspace, `${input.kind}_created`, id, {
      title,
      ...(input.plan !== undefined ? { plan: input.plan } : {}),
    });
    return { task, reasoning_ref: reasoningRef(id), event_id: event.event_id };
  });
}

export async function tasksEdit(
  store: Store,
  input: {
    workspace: string;
    id: string;
    expected_revision: number;
    title?: string;
    description?: string;
    status?: string;
  },
): Promise<MutationResult> {
  const expected = assertRevision(input.expected_revision);
  const title = input.title === undefined ? undefined : assertTaskTitle(input.title);
  const description = assertDescription(input.description);
  const status = assertStatus(input.status);
  if (title === undefined && description === undefined && status === undefined) {
    throw invalidInput('give at least one of title, description, status', {
      fields: ['title', 'description', 'status'],
    });
  }
  return await mutation(store, input.workspace, async (tx) => {
    const task = await requireTask(tx, input.workspace, input.id);
    checkRevision(task, expected);
    const changes: Record<string, unknown> = {};
    if (title !== undefined) changes.title = title;
    if (description !== undefined) changes.description = description;
    if (status !== undefined) changes.status = status;
    return await bump(tx, input.workspace, task, changes, 'edited');
  });
}

async function bump(
  tx: Transaction,
  workspace: string,
  task: TaskRow,
  changes: { title?: unknown; description?: unknown; status?: unknown },
  type: string,
  payload: Record<string, unknown> = changes,
): Promise<MutationResult> {
  await tx.run(
    `UPDATE tasks SET title = ?, description = ?, status = ?, revision = revision + 1, updated_at_ms = ?
     WHERE workspace = ? AND id = ?`,
    [
      (changes.title as string | undefined) ?? task.title,
      (changes.description as string | undefined) ?? task.description,
      (changes.status as TaskStatus | undefined) ?? task.status,
      Date.now(),
      workspace,
      task.id,
    ],
  );
  const updated = await requireTask(tx, workspace, task.id);
  const event = await emitEvent(tx, workspace, `${task.kind}_${type}`, task.id, {
    ...payload,
    revision: updated.revision,
  });
  return { task: updated, reasoning_ref: reasoningRef(task.id), event_id: event.event_id };
}

export async function tasksDecompose(
  store: Store,
  input: { workspace: string; id: string; steps: Array<{ title: string }>; expected_revision?: number },
): Promise<MutationResult & { steps: Array<{ step: number; title: string; done: boolean }> }> {
  if (!Array.isArray(input.steps) || input.steps.length === 0 || input.steps.length > MAX_STEPS_PER_CALL) {
    throw invalidInput(`steps must hold 1 to ${MAX_STEPS_PER_CALL} steps`, { field: 'steps' });
  }
  const titles = input.steps.map((s) => assertTaskTitle(s?.title));
  const expected =
    input.expected_revision === undefined ? undefined : assertRevision(input.expected_revision);
  return await mutation(store, input.workspace, async (tx) => {
    const task = await requireTask(tx, input.workspace, input.id);
    checkRevision(task, expected);
    const last = await tx.get<{ n: number | null }>(
      'SELECT MAX(step_no) AS n FROM task_steps WHERE workspace = ? AND task_id = ?',
      [input.workspace, task.id],
    );
    let n = Number(last?.n ?? 0);
    const added: Array<{ step: number; title: string; done: boolean }> = [];
    for (const t of titles) {
      n += 1;
      await tx.run(
        'INSERT INTO task_steps (workspace, task_id, step_no, title, done, created_at_ms) VALUES (?, ?, ?, ?, 0, ?)',
        [input.workspace, task.id, n, t, Date.now()],
      );
      added.push({ step: n, title: t, done: false });
    }
    const res = await bump(tx, input.workspace, task, {}, 'decomposed', { steps: added });
    return { ...res, steps: added };
  });
}

export async function tasksNote(
  store: Store,
  input: { workspace: string; id: string; content: string },
): Promise<{
  id: string;
  note: { content: string; ts: number };
  reasoning_ref: ReasoningRef;
  event_id: string;
}> {
  const content = assertContent(input.content);
  return await mutation(store, input.workspace, async (tx) => {
    const task = await requireTask(tx, input.workspace, input.id);
    const ts = Date.now();
    await tx.run('INSERT INTO task_notes (workspace, task_id, content, ts) VALUES (?, ?, ?, ?)', [
      input.workspace,
      task.id,
      content,
      ts,
    ]);
    const event = await emitEvent(tx, input.workspace, `${task.kind}_noted`, task.id, { content });
    return {
      id: task.id,
      note: { content, ts },
      reasoning_ref: reasoningRef(task.id),
      event_id: event.event_id,
    };
  });
}

export async function tasksDone(
  store: Store,
  input: { workspace: string; id: string; step?: number; expected_revision?: number },
): Promise<MutationResult> {
  const expected =
    input.expected_revision === undefined ? undefined : assertRevision(input.expected_revision);
  if (input.step !== undefined && (!Number.isSafeInteger(input.step) || input.step < 1)) {
    throw invalidInput('step must be a positive integer (a step number from tasks_decompose)', {
      field: 'step',
    });
  }
  return await mutation(store, input.workspace, async (tx) => {
    const task = await requireTask(tx, input.workspace, input.id);
    checkRevision(task, expected);
    if (input.step === undefined) return await bump(tx, input.workspace, task, { status: 'done' }, 'done');
    const res = await tx.run(
      'UPDATE task_steps SET done = 1 WHERE workspace = ? AND task_id = ? AND step_no = ?',
      [input.workspace, task.id, input.step],
    );
    if (res.changes === 0) {
      throw new NoemaError('UNKNOWN_STEP', `${task.id} has no step ${input.step}`, {
        details: { id: task.id, step: input.step },
        hint: `see the steps of ${task.id} with tasks_radar`,
        status: 404,
      });
    }
    return await bump(tx, input.workspace, task, {}, 'step_done', { step: input.step });
  });
}
