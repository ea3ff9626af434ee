/**
 * Merge-aware directional diff: entries in the effective view of `to` whose note identity
 * (origin_seq: a note and all its merge copies share it) is absent from the effective view of
 * `from`. Ranges both views share physically are skipped up front; the rest is walked tail-first
 * in chunks with a scan budget, so one call is bounded however long the histories are.
 */
import type { Queryable } from '../../../store/store.ts';
import { type EffectiveSource, effectiveSources } from '../branches.ts';
import type { EntryRow } from './entries.ts';
import { readTail, type SeqRange } from './view.ts';

/** Most entries one diff/merge call examines before returning a (possibly short) page with has_more. */
export const DIFF_SCAN_BUDGET = 1024;
const MAX_CHUNK = 256;

/** Ranges of `to`'s view that are not physically shared with `from`'s view. */
export function exclusiveRanges(
  toSources: readonly EffectiveSource[],
  fromSources: readonly EffectiveSource[],
): SeqRange[] {
  const fromCut = new Map<string, number | null>();
  for (const s of fromSources) fromCut.set(s.branch, s.cutoff);
  const out: SeqRange[] = [];
  for (const s of toSources) {
    if (!fromCut.has(s.branch)) {
      out.push({ branch: s.branch, lo: null, hi: s.cutoff });
      continue;
    }
    const cf = fromCut.get(s.branch) ?? null;
    if (cf === null) continue; // from sees all of this branch that to can see
    if (s.cutoff !== null && s.cutoff <= cf) continue;
    out.push({ branch: s.branch, lo: cf, hi: s.cutoff });
  }
  return out;
}

function inView(sources: Map<string, number | null>, branch: string, seq: number): boolean {
  if (!sources.has(branch)) return false;
  const cut = sources.get(branch) ?? null;
  return cut === null || seq <= cut;
}

/** origin_seqs among `origins` that have some entry (original or copy) in the view described by `sources`. */
async function presentOrigins(
  q: Queryable,
  workspace: string,
  doc: string,
  origins: number[],
  sources: Map<string, number | null>,
): Promise<Set<number>> {
  const present = new Set<number>();
  if (origins.length === 0) return present;
  const marks = origins.map(() => '?').join(', ');
  // origin_seq is a global seq, so it alone identifies the note (its copies share workspace and doc);
  // querying by it alone keeps the planner on the origin index whatever the table statistics say.
  const rows = await q.all<{
    workspace: string;
    doc: string;
    branch: string;
    seq: number;
    origin_seq: number;
  }>(
    `SELECT workspace, doc, branch, seq, origin_seq FROM doc_entries WHERE origin_seq IN (${marks})`,
    origins,
  );
  for (const r of rows) {
    if (r.workspace === workspace && r.doc === doc && inView(sources, r.branch, Number(r.seq)))
      present.add(Number(r.origin_seq));
  }
  return present;
}

export interface DiffWalk {
  /** Up to `limit` differing entries, newest first. */
  rows: EntryRow[];
  /** More differing entries may exist below the last row (or below `resumeAt`). */
  hasMore: boolean;
  /** Where to continue when the scan budget ran out before `limit` rows were found. */
  resumeAt?: number;
  /** Entries examined and excluded (present on the other side, or rejected by `accept`). */
  skipped: number;
}

/**
 * Walks entries in `to`'s view and not in `from`'s, newest first, below `cursor`. `accept`
 * filters further (merge keeps only notes); rejected entries count as skipped.
 */
export async function walkDiff(
  q: Queryable,
  workspace: string,
  doc: string,
  from: string,
  to: string,
  cursor: number | null,
  limit: number,
  accept: (row: EntryRow) => boolean = () => true,
): Promise<DiffWalk> {
  const toSources = await effectiveSources(q, workspace, to);
  const fromSources = await effectiveSources(q, workspace, from);
  const ranges = exclusiveRanges(toSources, fromSources);
  const fromMap = new Map(fromSources.map((s) => [s.branch, s.cutoff] as const));
  const rows: EntryRow[] = [];
  let skipped = 0;
  let skippedAtLimit = 0;
  let scanned = 0;
  let before = cursor;
  // Start with one page's worth (most diffs fill there) and grow while entries keep being excluded.
  let chunk = Math.min(limit + 1, MAX_CHUNK);
  while (ranges.length > 0) {
    const want = Math.min(chunk, DIFF_SCAN_BUDGET - scanned);
    chunk = Math.min(chunk * 2, MAX_CHUNK);
    if (want <= 0)
      return { rows: rows.slice(0, limit), hasMore: true, resumeAt: before ?? undefined, skipped };
    const page = await readTail(q, workspace, doc, ranges, before, want);
    if (page.length === 0) break;
    const present = await presentOrigins(
      q,
      workspace,
      doc,
      [...new Set(page.map((r) => Number(r.origin_seq)))],
      fromMap,
    );
    for (const r of page) {
      scanned += 1;
      before = Number(r.seq);
      if (present.has(Number(r.origin_seq)) || !accept(r)) {
        skipped += 1;
        continue;
      }
      rows.push(r);
      if (rows.length === limit) skippedAtLimit = skipped;
      // One row past the page proves has_more; entries skipped after the page's last row are rescanned next call.
      if (rows.length > limit) return { rows: rows.slice(0, limit), hasMore: true, skipped: skippedAtLimit };
    }
    if (page.length < want) break;
  }
  return { rows, hasMore: false, skipped };
}
