/** Milestones written by milestone nodes: one row per (flowchart, milestone_key), readable by id. */
import { NoemaError } from '../../core/errors.ts';
import type { Queryable, Transaction } from '../../store/store.ts';

export interface MilestoneRecord {
  milestone_id: number;
  flowchart_id: string;
  milestone_key: string;
  title: string;
  description: string;
  status: 'open' | 'complete';
  completed_at: string | null;
  created_at: string;
  updated_at: string;
}

const toMilestone = (r: Record<string, unknown>): MilestoneRecord => ({
  milestone_id: Number(r.milestone_id),
  flowchart_id: r.flowchart_id as string,
  milestone_key: r.milestone_key as string,
  title: r.title as string,
  description: r.description as string,
  status: r.status as MilestoneRecord['status'],
  completed_at: (r.completed_at as string | null) ?? null,
  created_at: r.created_at as string,
  updated_at: r.updated_at as string,
});

export function unknownMilestone(milestone_id: unknown): NoemaError {
  return new NoemaError('UNKNOWN_MILESTONE', `no milestone ${String(milestone_id)}`, {
    status: 404,
    details: { milestone_id },
  });
}

export async function getMilestone(q: Queryable, milestone_id: number): Promise<MilestoneRecord> {
  const r = await q.get('SELECT * FROM flow_milestones WHERE milestone_id = ?', [milestone_id]);
  if (!r) throw unknownMilestone(milestone_id);
  return toMilestone(r);
}

export async function findMilestone(
  q: Queryable,
  flowchart_id: string,
  key: string,
): Promise<MilestoneRecord | null> {
  const r = await q.get('SELECT * FROM flow_milestones WHERE flowchart_id = ? AND milestone_key = ?', [
    flowchart_id,
    key,
  ]);
  return r ? toMilestone(r) : null;
}

export interface MilestoneChange {
  before_milestone: MilestoneRecord | null;
  milestone: MilestoneRecord;
  /** True when this action reached the checkpoint: the milestone became complete now. */
  checkpoint_hit: boolean;
}

/** `create_or_update` (upsert title/description, status unchanged or `open`) or `mark_complete`. */
export async function applyMilestone(
  tx: Transaction,
  input: {
    flowchart_id: string;
    key: string;
    action: 'create_or_update' | 'mark_complete';
    title: string;
    description: string;
    now: string;
  },
): Promise<MilestoneChange> {
  // The row locked, else inserted-or-nothing and then locked: of two processes applying one milestone
  // at once, neither fails on the unique key, and the second reads (and reports its change from) what
  // the first committed. An existing milestone (every run after its first) costs the lock and its
  // update; the update's result is known from the locked row, so it is not waited for here.
  const lock = () =>
    tx.get(
      `SELECT * FROM flow_milestones WHERE flowchart_id = ? AND milestone_key = ?${tx.dialect.forUpdate}`,
      [input.flowchart_id, input.key],
    );
  const found = await lock();
  const created = found
    ? undefined
    : await tx.get(
        `INSERT INTO flow_milestones (flowchart_id, milestone_key, title, description, status, completed_at, created_at, updated_at)
     VALUES (?, ?, ?, ?, 'open', NULL, ?, ?)
     ON CONFLICT (flowchart_id, milestone_key) DO NOTHING RETURNING *`,
        [input.flowchart_id, input.key, input.title, input.description, input.now, input.now],
      );
  const before = created ? null : toMilestone((found ?? (await lock()))!);
  let after = before ?? toMilestone(created!);
  // The row's update is issued, not awaited (its result is known from the locked row): it travels with
  // the caller's next writes and the COMMIT where the store pipelines.
  if (before && input.action === 'create_or_update') {
    after = {
      ...before,
      title: input.title || before.title,
      description: input.description || before.description,
      updated_at: input.now,
    };
    tx.write('UPDATE flow_milestones SET title = ?, description = ?, updated_at = ? WHERE milestone_id = ?', [
      after.title,
      after.description,
      input.now,
      before.milestone_id,
    ]);
  }
  if (input.action === 'mark_complete') {
    after = {
      ...after,
      status: 'complete',
      completed_at: after.completed_at ?? input.now,
      updated_at: input.now,
    };
    tx.write(
      `UPDATE flow_milestones SET status = 'complete', completed_at = COALESCE(completed_at, ?), updated_at = ?
       WHERE milestone_id = ?`,
      [input.now, input.now, after.milestone_id],
    );
  }
  return {
    before_milestone: before,
    milestone: after,
    checkpoint_hit: after.status === 'complete' && before?.status !== 'complete',
  };
}
