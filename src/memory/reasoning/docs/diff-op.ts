/** branchmind_diff: a bounded page of the merge-aware directional diff between two branches. */

import { assertHumanId } from '../../../core/ids.ts';
import type { Queryable } from '../../../store/store.ts';
import { assertBranchName } from '../branches.ts';
import { requireWorkspace } from '../workspaces.ts';
import { walkDiff } from './diff.ts';
import { type DocEntry, toDocEntry } from './entries.ts';
import { fitPage, type Pagination } from './page.ts';
import { normCursor, normLimit, normMaxChars } from './params.ts';
import { SHOW_DEFAULT_LIMIT, SHOW_MAX_LIMIT } from './show.ts';

export interface DiffInput {
  workspace: string;
  from: string;
  to: string;
  doc?: string;
  cursor?: number | null;
  limit?: number;
  max_chars?: number;
}

export type DiffPage = {
  from: string;
  to: string;
  doc: string;
  entries: DocEntry[];
  pagination: Pagination;
  truncated: boolean;
};

export async function diff(q: Queryable, input: DiffInput): Promise<DiffPage> {
  const from = assertBranchName(input.from, 'from');
  const to = assertBranchName(input.to, 'to');
  const doc = assertHumanId(input.doc ?? 'notes', 'doc');
  const cursor = normCursor(input.cursor);
  const limit = normLimit(input.limit, SHOW_DEFAULT_LIMIT, SHOW_MAX_LIMIT);
  const maxChars = normMaxChars(input.max_chars);
  await requireWorkspace(q, input.workspace);
  const walk = await walkDiff(q, input.workspace, doc, from, to, cursor, limit);
  const fit = fitPage({
    items: walk.rows.map(toDocEntry),
    cursor,
    limit,
    moreBeyond: walk.hasMore,
    ...(walk.resumeAt !== undefined ? { resumeAt: walk.resumeAt } : {}),
    maxChars,
    build: (entries, pagination, truncated) => ({ from, to, doc, entries, pagination, truncated }),
  });
  return fit.value as unknown as DiffPage;
}
