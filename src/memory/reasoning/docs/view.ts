/**
 * Effective-view reads: a document's entries over several seq ranges (one per source branch),
 * newest first. Each range is read through the (workspace, branch, doc, seq) index with its own
 * LIMIT, stopping early once older ranges cannot matter, so cost depends on the page, not the doc.
 */
import type { Queryable } from '../../../store/store.ts';
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

/**
 * Up to `limit` entries of `doc` over `ranges` with `seq < before` (null = no bound), newest
 * first. Ranges are read one by one through the index, each with LIMIT of what is still
 * missing, and reading stops as soon as no remaining range can hold an entry newer than the
 * oldest one kept. For a branch chain the ranges are disjoint and descending (a branch's own
 * entries are all newer than its base_seq), so a page usually costs one or two index probes
 * however deep the ancestry or long the documents.
 */
export async function readTail(
  q: Queryable,
  workspace: string,
  doc: string,
  ranges: readonly SeqRange[],
  before: number | null,
  limit: number,
): Promise<EntryRow[]> {
  const bounded = ranges
    .map((r) => ({
      branch: r.branch,
      lo: r.lo ?? 0,
      hi: Math.min(r.hi ?? MAX_SEQ, before === null ? MAX_SEQ : before - 1),
    }))
    .filter((r) => r.hi > r.lo);
  let rows: EntryRow[] = [];
  for (let i = 0; i < bounded.length; i++) {
    const r = bounded[i] as (typeof bounded)[number];
    if (rows.length >= limit) {
      const oldest = Number((rows[rows.length - 1] as EntryRow).seq);
      let maxHi = 0;
      for (let j = i; j < bounded.length; j++)
        maxHi = Math.max(maxHi, (bounded[j] as (typeof bounded)[number]).hi);
      if (maxHi < oldest) break;
    }
    const got = await q.all<EntryRow>(
      `SELECT ${ENTRY_COLUMNS} FROM doc_entries
        WHERE workspace = ? AND branch = ? AND doc = ? AND seq > ? AND seq <= ?
        ORDER BY seq DESC LIMIT ?`,
      [workspace, r.branch, doc, r.lo, r.hi, limit],
    );
    if (got.length === 0) continue;
    rows = rows.length === 0 ? got : mergeDesc(rows, got, limit);
  }
  return rows;
}

function mergeDesc(a: EntryRow[], b: EntryRow[], limit: number): EntryRow[] {
  const out: EntryRow[] = [];
  let i = 0;
  let j = 0;
  while (out.length < limit && (i < a.length || j < b.length)) {
    const x = a[i];
    const y = b[j];
    if (y === undefined || (x !== undefined && Number(x.seq) > Number(y.seq))) {
      out.push(x as EntryRow);
      i++;
    } else {
      out.push(y);
      j++;
    }
  }
  return out;
}
