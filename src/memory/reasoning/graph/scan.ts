/**
 * Filtered reads with a scan budget: each source walks at most SCAN_BUDGET of its newest
 * candidates below the cursor, then filters. A selective filter (a rare `text`) therefore costs
 * the same at 10k or 1M nodes; the page may come back short with `has_more` and a cursor that
 * continues the walk exactly where it stopped.
 */
import type { Queryable } from '../../../store/store.ts';
import type { EffectiveSource } from '../branches.ts';
import type { NodeRow } from './rows.ts';
import type { GraphScope } from './types.ts';
import { COLUMNS, type PageOptions, sourceClause, type Where } from './view.ts';

/** Candidates examined per source per call. */
export const SCAN_BUDGET = 5_000;

export interface ScannedPage {
  rows: NodeRow[];
  /**
   * Set when some source stopped on its budget: every row with seq >= frontier was examined,
   * nothing below it was. Continue with `cursor = frontier`.
   */
  frontier: number | null;
}

export async function scanNodes(
  q: Queryable,
  scope: GraphScope,
  sources: readonly EffectiveSource[],
  where: Where,
  opts: PageOptions,
  budget = SCAN_BUDGET,
): Promise<ScannedPage> {
  const found: NodeRow[] = [];
  let frontier: number | null = null;
  for (let i = 0; i < sources.length; i++) {
    const inner = sourceClause('node', scope, sources, i, { sql: '', params: [] }, opts);
    // The budget-th newest candidate, if there is one, is where this source's walk stops
    // (an index-only walk); the filtered read is then bounded below by it.
    const last = await q.get<{ s: number }>(
      `SELECT v.seq AS s ${inner.sql} ORDER BY v.seq DESC LIMIT 1 OFFSET ${budget - 1}`,
      inner.params,
    );
    const bounded = last ? ' AND v.seq >= ?' : '';
    const rows = await q.all<NodeRow>(
      `SELECT ${COLUMNS.node} ${inner.sql}${bounded}${where.sql ? ` AND (${where.sql})` : ''} ORDER BY v.seq DESC LIMIT ?`,
      [...inner.params, ...(last ? [Number(last.s)] : []), ...where.params, opts.limit],
    );
    found.push(...rows);
    if (last) frontier = Math.max(frontier ?? 0, Number(last.s));
  }
  const f = frontier;
  const rows = found
    .filter((r) => f === null || Number(r.seq) >= f)
    .sort((a, b) => Number(b.seq) - Number(a.seq))
    .slice(0, opts.limit);
  return { rows, frontier: f };
}
