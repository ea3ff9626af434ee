/**
 * Bounded reads for browsing reasoning memory: the workspaces (newest first) and a workspace's branch
 * tree — each branch with its base and base cutoff and the newest seq written on it (its head).
 */
import { invalidInput } from '../../core/errors.ts';
import type { Queryable } from '../../store/store.ts';
import { requireWorkspace } from './workspaces.ts';

export interface WorkspaceSummary {
  workspace: string;
  checkout: string;
  branch_count: number;
  created_at_ms: number;
}

/** Workspaces, newest first; `cursor` is the previous page's next_cursor (`created_at_ms:workspace`). */
export async function listWorkspaces(
  q: Queryable,
  input: { limit: number; cursor?: string },
): Promise<{ items: WorkspaceSummary[]; next_cursor: string | null }> {
  const params: Array<string | number> = [];
  let where = '';
  if (input.cursor !== undefined) {
    const m = /^(\d{1,15}):(.+)$/.exec(input.cursor);
    if (!m) throw invalidInput('cursor is not a next_cursor from this listing', { cursor: input.cursor });
    where = 'WHERE (w.created_at_ms < ? OR (w.created_at_ms = ? AND w.workspace < ?))';
    params.push(Number(m[1]), Number(m[1]), m[2]!);
  }
  const rows = await q.all<Record<string, unknown>>(
    `SELECT w.workspace, w.checkout, w.created_at_ms,
       (SELECT COUNT(*) FROM reasoning_branches b WHERE b.workspace = w.workspace) AS branch_count
     FROM reasoning_workspaces w ${where} ORDER BY w.created_at_ms DESC, w.workspace DESC LIMIT ?`,
    [...params, input.limit + 1],
  );
  const items = rows.slice(0, input.limit).map((r) => ({
    workspace: String(r.workspace),
    checkout: String(r.checkout),
    branch_count: Number(r.branch_count),
    created_at_ms: Number(r.created_at_ms),
  }));
  const last = items.at(-1);
  return {
    items,
    next_cursor: rows.length > input.limit && last ? `${last.created_at_ms}:${last.workspace}` : null,
  };
}

export interface BranchTreeRow {
  name: string;
  base_branch: string | null;
  base_seq: number | null;
  head_seq: number;
  entry_count: number;
}

/** Every branch of a workspace (at most `limit`, by name) with its head seq and entry count. */
export async function branchTree(
  q: Queryable,
  input: { workspace: string; limit?: number },
): Promise<{ workspace: string; checkout: string; branches: BranchTreeRow[]; truncated: boolean }> {
  const ws = await requireWorkspace(q, input.workspace);
  const limit = input.limit ?? 200;
  const rows = await q.all<Record<string, unknown>>(
    `SELECT b.name, b.base_branch, b.base_seq,
       (SELECT MAX(e.seq) FROM doc_entries e WHERE e.workspace = b.workspace AND e.branch = b.name) AS head_seq,
       (SELECT COUNT(*) FROM doc_entries e WHERE e.workspace = b.workspace AND e.branch = b.name) AS entry_count
     FROM reasoning_branches b WHERE b.workspace = ? ORDER BY b.name LIMIT ?`,
    [input.workspace, limit + 1],
  );
  const branches = rows.slice(0, limit).map((r) => {
    const base = r.base_seq === null || r.base_seq === undefined ? null : Number(r.base_seq);
    const head = r.head_seq === null || r.head_seq === undefined ? null : Number(r.head_seq);
    return {
      name: String(r.name),
      base_branch: (r.base_branch as string | null) ?? null,
      base_seq: base,
      head_seq: head ?? base ?? 0,
      entry_count: Number(r.entry_count),
    };
  });
  return { workspace: ws.workspace, checkout: ws.checkout, branches, truncated: rows.length > limit };
}
