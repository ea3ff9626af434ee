/** Target metadata for branchmind_export: what a plan/task is, without its logs. */
import type { Queryable } from '../../store/store.ts';
import { findTask } from './store-ops.ts';

export async function describeTarget(
  q: Queryable,
  workspace: string,
  target: string,
): Promise<Record<string, unknown>> {
  const t = await findTask(q, workspace, target);
  if (!t) return {};
  return {
    kind: t.kind,
    plan: t.plan,
    title: t.title,
    status: t.status,
    revision: t.revision,
    updated_at_ms: t.updated_at_ms,
  };
}
