/** Task rows: per-workspace locking and counters, row mapping, lookups. */

import { NoemaError } from '../../core/errors.ts';
import type { Queryable, Transaction } from '../../store/store.ts';
import { assertTargetId } from '../reasoning/targets.ts';

export const TASK_STATUSES = ['todo', 'in_progress', 'blocked', 'done', 'canceled'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

export interface TaskRow {
  id: string;
  kind: 'plan' | 'task';
  plan: string | null;
  title: string;
  description: string;
  status: TaskStatus;
  revision: number;
  created_at_ms: number;
  updated_at_ms: number;
}

type RawTask = {
  id: string;
  ord: number;
  kind: string;
  plan_id: string | null;
  title: string;
  description: string;
  status: string;
  revision: number;
  created_at_ms: number;
  updated_at_ms: number;
};

export const TASK_COLUMNS =
  'id, ord, kind, plan_id, title, description, status, revision, created_at_ms, updated_at_ms';

export function toTask(r: RawTask): TaskRow {
  return {
    id: r.id,
    kind: r.kind as TaskRow['kind'],
    plan: r.plan_id ?? null,
    title: r.title,
    description: r.description,
    status: r.status as TaskStatus,
    revision: Number(r.revision),
    created_at_ms: Number(r.created_at_ms),
    updated_at_ms: Number(r.updated_at_ms),
  };
}

/** Serializes task mutations of one workspace. */
export async function lockWorkspace(tx: Transaction, workspace: string): Promise<void> {
  await tx.lockKey(`tasks:${workspace}`);
}

/** Next value of a per-workspace counter (call under lockWorkspace). */
export async function nextCounter(tx: Transaction, workspace: string, name: string): Promise<number> {
  const row = await tx.get<{ value: number }>(
    `INSERT INTO tasks_counters (workspace, name, value) VALUES (?, ?, 1)
     ON CONFLICT (workspace, name) DO UPDATE SET value = tasks_counters.value + 1 RETURNING value`,
    [workspace, name],
  );
  return Number(row?.value);
}

export function unknownTask(workspace: string, id: string): NoemaError {
  return new NoemaError('UNKNOWN_TARGET', `no plan or task "${id}" in workspace "${workspace}"`, {
    details: { workspace, id },
    hint: 'list plans and tasks with tasks_context, or create one with tasks_create',
    status: 404,
  });
}

export async function findTask(q: Queryable, workspace: string, id: string): Promise<TaskRow | undefined> {
  const row = await q.get<RawTask>(`SELECT ${TASK_COLUMNS} FROM tasks WHERE workspace = ? AND id = ?`, [
    workspace,
    id,
  ]);
  return row ? toTask(row) : undefined;
}

export async function requireTask(q: Queryable, workspace: string, id: string): Promise<TaskRow> {
  assertTargetId(id, 'id');
  const t = await findTask(q, workspace, id);
  if (!t) throw unknownTask(workspace, id);
  return t;
}

export async function listTasks(
  q: Queryable,
  workspace: string,
  filter: { plan?: string; status?: string; afterOrd: number; limit: number },
): Promise<Array<TaskRow & { ord: number }>> {
  const where = ['workspace = ?', 'ord > ?'];
  const params: Array<string | number> = [workspace, filter.afterOrd];
  if (filter.plan !== undefined) {
    where.push('(plan_id = ? OR id = ?)');
    params.push(filter.plan, filter.plan);
  }
  if (filter.status !== undefined) {
    where.push('status = ?');
    params.push(filter.status);
  }
  params.push(filter.limit);
  const rows = await q.all<RawTask>(
    `SELECT ${TASK_COLUMNS} FROM tasks WHERE ${where.join(' AND ')} ORDER BY ord LIMIT ?`,
    params,
  );
  return rows.map((r) => ({ ...toTask(r), ord: Number(r.ord) }));
}
