/** Plans written by plan nodes: one row per (flowchart, plan_key), readable by `plan_id`. */
import { NoemaError } from '../../../core/errors.ts';
import type { Queryable, Transaction } from '../../../store/store.ts';
import type { PlanDoc } from './applier.ts';

export interface PlanRecord {
  plan_id: number;
  flowchart_id: string;
  plan_key: string;
  plan: PlanDoc;
  next_seq: number;
  created_at: string;
  updated_at: string;
}

const toPlan = (r: Record<string, unknown>): PlanRecord => ({
  plan_id: Number(r.plan_id),
  flowchart_id: r.flowchart_id as string,
  plan_key: r.plan_key as string,
  plan: JSON.parse(r.plan_json as string) as PlanDoc,
  next_seq: Number(r.next_seq),
  created_at: r.created_at as string,
  updated_at: r.updated_at as string,
});

export function unknownPlan(plan_id: unknown): NoemaError {
  return new NoemaError('UNKNOWN_PLAN', `no plan ${String(plan_id)}`, { status: 404, details: { plan_id } });
}

export async function getPlan(q: Queryable, plan_id: number): Promise<PlanRecord> {
  const r = await q.get('SELECT * FROM flow_plans WHERE plan_id = ?', [plan_id]);
  if (!r) throw unknownPlan(plan_id);
  return toPlan(r);
}

export async function findPlan(
  q: Queryable,
  flowchart_id: string,
  plan_key: string,
): Promise<PlanRecord | null> {
  const r = await q.get('SELECT * FROM flow_plans WHERE flowchart_id = ? AND plan_key = ?', [
    flowchart_id,
    plan_key,
  ]);
  return r ? toPlan(r) : null;
}

/**
 * Inside a write transaction: the plan row, created empty when absent, with its row locked (the
 * upsert's no-op update takes the row lock on PostgreSQL; SQLite's write transaction already
 * serializes writers) — one statement, the row returned.
 */
export async function lockPlan(
  tx: Queryable,
  flowchart_id: string,
  plan_key: string,
  now: string,
): Promise<PlanRecord> {
  const r = await tx.get(
    `INSERT INTO flow_plans (flowchart_id, plan_key, plan_json, next_seq, created_at, updated_at)
     VALUES (?, ?, ?, 1, ?, ?)
     ON CONFLICT (flowchart_id, plan_key) DO UPDATE SET next_seq = flow_plans.next_seq RETURNING *`,
    [flowchart_id, plan_key, JSON.stringify({ stages: [] }), now, now],
  );
  return toPlan(r!);
}

/** Issues the plan's update in `tx` without waiting for it: it travels with the transaction's next writes. */
export function issuePlanWrite(
  tx: Transaction,
  plan_id: number,
  plan: PlanDoc,
  next_seq: number,
  now: string,
): void {
  tx.write('UPDATE flow_plans SET plan_json = ?, next_seq = ?, updated_at = ? WHERE plan_id = ?', [
    JSON.stringify(plan),
    next_seq,
    now,
    plan_id,
  ]);
}
