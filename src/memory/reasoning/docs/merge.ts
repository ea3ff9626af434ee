/**
 * branchmind_merge: copies `kind="note"` entries of `from`'s view that `into` lacks (by note
 * identity) into `into`, oldest first within a page. Each copy keeps its origin (so diff treats
 * it as the same note) and carries `source_event_id = merge:<branch>:<seq>` of the entry copied,
 * which makes the merge idempotent even under concurrent runs.
 */
import { assertHumanId } from '../../../core/ids.ts';
import type { Queryable, Store } from '../../../store/store.ts';
import { assertBranchName } from '../branches.ts';
import { requireWorkspace } from '../workspaces.ts';
import { type DiffWalk, walkDiff } from './diff.ts';
import { appendEntry, type NewEntry } from './entries.ts';
import type { Pagination } from './page.ts';
import { normCursor, normLimit } from './params.ts';

export const MERGE_DEFAULT_LIMIT = 100;
export const MERGE_MAX_LIMIT = 500;

export interface MergeInput {
  workspace: string;
  from: string;
  into: string;
  doc?: string;
  cursor?: number | null;
  limit?: number;
  dry_run?: boolean;
}

export type MergeResult = {
  from: string;
  into: string;
  doc: string;
  dry_run: boolean;
  merged: number;
  skipped: number;
  pagination: Pagination;
};

export async function merge(store: Store, input: MergeInput): Promise<MergeResult> {
  const from = assertBranchName(input.from, 'from');
  const into = assertBranchName(input.into, 'into');
  const doc = assertHumanId(input.doc ?? 'notes', 'doc');
  const cursor = normCursor(input.cursor);
  const limit = normLimit(input.limit, MERGE_DEFAULT_LIMIT, MERGE_MAX_LIMIT);
  const dryRun = input.dry_run === true;
  const discover = (q: Queryable): Promise<DiffWalk> =>
    walkDiff(q, input.workspace, doc, into, from, cursor, limit, (r) => r.kind === 'note');
  const run = async (q: Queryable, write: boolean): Promise<MergeResult> => {
    await requireWorkspace(q, input.workspace);
    const walk = await discover(q);
    if (write) {
      for (const r of [...walk.rows].reverse()) {
        const e: NewEntry = {
          workspace: input.workspace,
          branch: into,
          doc,
          kind: 'note',
          content: r.content,
          source_event_id: `merge:${r.branch}:${Number(r.seq)}`,
          origin_seq: Number(r.origin_seq),
        };
        if (r.title !== null) e.title = r.title;
        if (r.format !== null) e.format = r.format;
        if (r.meta !== null) e.meta = JSON.parse(r.meta) as Record<string, unknown>;
        await appendEntry(q as Parameters<typeof appendEntry>[0], e);
      }
    }
    const pagination: Pagination = { cursor, has_more: walk.hasMore, limit, count: walk.rows.length };
    if (walk.hasMore) {
      const next = walk.resumeAt ?? (walk.rows.at(-1) ? Number(walk.rows.at(-1)?.seq) : undefined);
      if (next !== undefined) pagination.next_cursor = next;
    }
    return { from, into, doc, dry_run: dryRun, merged: walk.rows.length, skipped: walk.skipped, pagination };
  };
  if (dryRun) return await run(store, false);
  return await store.transaction((tx) => run(tx, true));
}
