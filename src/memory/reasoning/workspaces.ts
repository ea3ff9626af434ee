/** Workspaces: the explicit scope of every stateful reasoning tool, with its checkout branch. */

import { NoemaError } from '../../core/errors.ts';
import { assertHumanId } from '../../core/ids.ts';
import type { Queryable, Transaction } from '../../store/store.ts';

export const DEFAULT_BRANCH = 'main';

export type WorkspaceRow = {
  workspace: string;
  checkout: string;
  last_event_id: string | null;
  last_event_ts: number | null;
};

/** Validates a workspace id (INVALID_INPUT) without touching the store. */
export function assertWorkspaceId(workspace: unknown): string {
  return assertHumanId(workspace, 'workspace');
}

/** Throws UNKNOWN_WORKSPACE (hint: branchmind_init) unless the workspace was initialized. */
export async function requireWorkspace(
  q: Queryable,
  workspace: string,
): Promise<{ workspace: string; checkout: string }> {
  const row = await getWorkspace(q, workspace);
  return { workspace: row.workspace, checkout: row.checkout };
}

export async function getWorkspace(q: Queryable, workspace: string): Promise<WorkspaceRow> {
  assertWorkspaceId(workspace);
  const row = await q.get<WorkspaceRow>(
    'SELECT workspace, checkout, last_event_id, last_event_ts FROM reasoning_workspaces WHERE workspace = ?',
    [workspace],
  );
  if (!row) {
    throw new NoemaError('UNKNOWN_WORKSPACE', `workspace "${workspace}" was never initialized`, {
      details: { workspace },
      hint: `call branchmind_init with {"workspace":"${workspace}"} first`,
      status: 404,
    });
  }
  return {
    workspace: row.workspace,
    checkout: row.checkout,
    last_event_id: row.last_event_id ?? null,
    last_event_ts:
      row.last_event_ts === null || row.last_event_ts === undefined ? null : Number(row.last_event_ts),
  };
}

/** Creates the workspace (checkout `main`) if missing. Returns true when it was created. */
export async function ensureWorkspace(tx: Transaction, workspace: string): Promise<boolean> {
  assertWorkspaceId(workspace);
  const res = await tx.run(
    'INSERT INTO reasoning_workspaces (workspace, checkout, created_at_ms) VALUES (?, ?, ?) ON CONFLICT (workspace) DO NOTHING',
    [workspace, DEFAULT_BRANCH, Date.now()],
  );
  return res.changes > 0;
}

export async function setCheckout(tx: Transaction, workspace: string, branch: string): Promise<void> {
  await tx.run('UPDATE reasoning_workspaces SET checkout = ? WHERE workspace = ?', [branch, workspace]);
}

/** Records the latest ingested task event, for branchmind_status. */
export async function recordLastEvent(
  tx: Transaction,
  workspace: string,
  eventId: string,
  ts: number,
): Promise<void> {
  await tx.run('UPDATE reasoning_workspaces SET last_event_id = ?, last_event_ts = ? WHERE workspace = ?', [
    eventId,
    ts,
    workspace,
  ]);
}
