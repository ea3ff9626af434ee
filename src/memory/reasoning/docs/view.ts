/**
 * Effective-view reads: a document's entries over several seq ranges (one per source branch),
 * newest first. Each range is read through the (workspace, branch, doc, seq) index with its own
 * LIMIT and the ranges are merged in one UNION ALL query, so cost depends on the page, not the doc.
 */
import type { Queryable, SqlValue } from '../../../store/store.ts';
import type { EffectiveSource } from '../branches.ts';
import { ENTRY_COLUMNS, type EntryRow } from './entries.ts';

/** Entries of `branch` with `lo < seq <= hi` (null = unbounded). */
export interface SeqRange {
  branch: string;
  lo: number | null;
  hi: number | null;
}

const MAX_SEQ = Number.MAX_SAFE_INTEGER;

export function rangesOf(sources: readonly EffectiveSource[]): SeqRange[] {
  return sources.map((s) => ({ branch: s.branch, lo: null, hi: s.cutoff }));
}

/** Up to `limit` entries of `doc` over `ranges` with `seq < before` (null = no bound), newest first. */
export async function readTail(
  q: Queryable,
  workspace: string,
  doc: string,
  ranges: readonly SeqRange[],
  before: number | null,
  limit: number,
): Promise<EntryRow[]> {
  const parts: string[] = [];
  const params: SqlValue[] = [];
  ranges.forEach((r, i) => {
    const hi = Math.min(r.hi ?? MAX_SEQ, before === null ? MAX_SEQ : before - 1);
    const lo = r.lo ?? 0;
    if (hi <= lo) return;
    parts.push(
      `SELECT * FROM (SELECT ${ENTRY_COLUMNS} FROM doc_entries
         WHERE workspace = ? AND branch = ? AND doc = ? AND seq > ? AND seq <= ?
         ORDER BY seq DESC LIMIT ?) AS s${i}`,
    );
    params.push(workspace, r.branch, doc, lo, hi, limit);
  });
  if (parts.length === 0) return [];
  if (parts.length === 1) {
    return await q.all<EntryRow>(parts[0] as string, params);
  }
  params.push(limit);
  const rows = await q.all<EntryRow>(`${parts.join(' UNION ALL ')} ORDER BY seq DESC LIMIT ?`, params);
  return rows;
}
