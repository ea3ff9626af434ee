/** branchmind_show: a bounded tail slice of a document's effective view, paginated by seq. */
import type { Queryable } from '../../../store/store.ts';
import { effectiveSources } from '../branches.ts';
import { resolveTarget } from '../targets.ts';
import { requireWorkspace } from '../workspaces.ts';
import { type DocEntry, toDocEntry } from './entries.ts';
import { fitPage, type Pagination } from './page.ts';
import { normCursor, normLimit, normMaxChars } from './params.ts';
import { rangesOf, readTail } from './view.ts';

export const SHOW_DEFAULT_LIMIT = 20;
export const SHOW_MAX_LIMIT = 200;

export interface ShowInput {
  workspace: string;
  target?: string;
  doc_kind?: 'notes' | 'trace';
  branch?: string;
  doc?: string;
  cursor?: number | null;
  limit?: number;
  max_chars?: number;
}

export type ShowPage = {
  branch: string;
  doc: string;
  entries: DocEntry[];
  pagination: Pagination;
  truncated: boolean;
};

/** Reads up to `limit` entries older than `cursor` (plus one to know has_more). */
export async function readPage(
  q: Queryable,
  workspace: string,
  branch: string,
  doc: string,
  cursor: number | null,
  limit: number,
): Promise<{ entries: DocEntry[]; hasMore: boolean }> {
  const sources = await effectiveSources(q, workspace, branch);
  const rows = await readTail(q, workspace, doc, rangesOf(sources), cursor, limit + 1);
  return { entries: rows.slice(0, limit).map(toDocEntry), hasMore: rows.length > limit };
}

export async function show(q: Queryable, input: ShowInput): Promise<ShowPage> {
  const cursor = normCursor(input.cursor);
  const limit = normLimit(input.limit, SHOW_DEFAULT_LIMIT, SHOW_MAX_LIMIT);
  const maxChars = normMaxChars(input.max_chars);
  await requireWorkspace(q, input.workspace);
  const { target, branch, doc } = input;
  const where = await resolveTarget(q, input.workspace, { target, branch, doc }, input.doc_kind ?? 'notes');
  const page = await readPage(q, input.workspace, where.branch, where.doc, cursor, limit);
  const fit = fitPage({
    items: page.entries,
    cursor,
    limit,
    moreBeyond: page.hasMore,
    maxChars,
    build: (entries, pagination, truncated) => ({
      branch: where.branch,
      doc: where.doc,
      entries,
      pagination,
      truncated,
    }),
  });
  return fit.value as unknown as ShowPage;
}
