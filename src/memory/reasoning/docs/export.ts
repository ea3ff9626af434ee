/**
 * branchmind_export: a bounded resumption snapshot of a target: its metadata, reasoning refs, and
 * the tails of its notes and trace docs. `max_chars` bounds the whole payload by dropping the
 * globally oldest entries first; each side's pagination says where to continue.
 */
import { fitToBudget } from '../../../core/budget.ts';
import type { Queryable } from '../../../store/store.ts';
import { type ReasoningRef, requireTarget } from '../targets.ts';
import { requireWorkspace } from '../workspaces.ts';
import type { DocEntry } from './entries.ts';
import type { Pagination } from './page.ts';
import { normLimit, normMaxChars } from './params.ts';
import { readPage, SHOW_MAX_LIMIT } from './show.ts';

export interface ExportInput {
  workspace: string;
  target: string;
  notes_limit?: number;
  trace_limit?: number;
  max_chars?: number;
}

type Side = 'notes' | 'trace';

export async function exportSnapshot(
  q: Queryable,
  input: ExportInput,
  describeTarget: (q: Queryable, workspace: string, target: string) => Promise<Record<string, unknown>>,
): Promise<Record<string, unknown>> {
  const notesLimit = normLimit(input.notes_limit, 20, SHOW_MAX_LIMIT, 'notes_limit');
  const traceLimit = normLimit(input.trace_limit, 20, SHOW_MAX_LIMIT, 'trace_limit');
  const maxChars = normMaxChars(input.max_chars);
  await requireWorkspace(q, input.workspace);
  const ref: ReasoningRef = await requireTarget(q, input.workspace, input.target);
  const meta = await describeTarget(q, input.workspace, input.target);
  const notes = await readPage(q, input.workspace, ref.branch, ref.notes_doc, null, notesLimit);
  const trace = await readPage(q, input.workspace, ref.branch, ref.trace_doc, null, traceLimit);
  const tagged: Array<{ side: Side; entry: DocEntry }> = [
    ...notes.entries.map((entry) => ({ side: 'notes' as const, entry })),
    ...trace.entries.map((entry) => ({ side: 'trace' as const, entry })),
  ].sort((a, b) => b.entry.seq - a.entry.seq);

  const sideOf = (
    kept: typeof tagged,
    side: Side,
    doc: string,
    limit: number,
    hasMore: boolean,
    all: DocEntry[],
  ) => {
    const entries = kept.filter((t) => t.side === side).map((t) => t.entry);
    const dropped = entries.length < all.length;
    const pagination: Pagination = {
      cursor: null,
      has_more: hasMore || dropped,
      limit,
      count: entries.length,
    };
    if (pagination.has_more) {
      const last = entries.at(-1);
      const firstDropped = all[entries.length];
      pagination.next_cursor = dropped
        ? last
          ? last.seq
          : (firstDropped as DocEntry).seq + 1
        : (last as DocEntry).seq;
    }
    return { branch: ref.branch, doc, entries, pagination, truncated: dropped };
  };
  return fitToBudget({
    items: tagged,
    maxChars,
    dropFrom: 'end',
    build: (kept, truncated) => ({
      target: { id: input.target, ...meta },
      reasoning_ref: ref,
      notes: sideOf(kept, 'notes', ref.notes_doc, notesLimit, notes.hasMore, notes.entries),
      trace: sideOf(kept, 'trace', ref.trace_doc, traceLimit, trace.hasMore, trace.entries),
      truncated,
    }),
  }).value as Record<string, unknown>;
}
