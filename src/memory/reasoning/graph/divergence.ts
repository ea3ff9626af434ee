/**
 * Which keys can differ between two effective views: those with a version visible in one view
 * but not the other. Shared history (the same rows visible to both) is never scanned, so diff
 * and merge cost grows with divergence, not with the size of the graph.
 */
import { NoemaError } from '../../../core/errors.ts';
import type { Queryable, SqlValue } from '../../../store/store.ts';
import type { EffectiveSource } from '../branches.ts';
import type { EdgeKey, GraphScope } from './types.ts';

/** Past this many diverging keys a diff/merge refuses rather than running unbounded. */
export const MAX_DIVERGENT_KEYS = 100_000;

export interface DivergentKeys {
  nodes: string[];
  edges: EdgeKey[];
}

/** Seq ranges of `a`'s sources that `b` cannot see. */
function unseenRanges(a: readonly EffectiveSource[], b: readonly EffectiveSource[]) {
  const out: Array<{ branch: string; above: number | null; upTo: number | null }> = [];
  for (const s of a) {
    const other = b.find((x) => x.branch === s.branch);
    if (other && other.cutoff === null) continue;
    const above = other ? other.cutoff : null;
    if (above !== null && s.cutoff !== null && s.cutoff <= above) continue;
    out.push({ branch: s.branch, above, upTo: s.cutoff });
  }
  return out;
}

export async function divergentKeys(
  q: Queryable,
  scope: GraphScope,
  a: readonly EffectiveSource[],
  b: readonly EffectiveSource[],
): Promise<DivergentKeys> {
  const nodes = new Set<string>();
  const edges = new Map<string, EdgeKey>();
  const ranges = [...unseenRanges(a, b), ...unseenRanges(b, a)];
  for (const r of ranges) {
    let where = 'workspace = ? AND branch = ? AND doc = ?';
    const params: SqlValue[] = [scope.workspace, r.branch, scope.doc];
    if (r.above !== null) {
      where += ' AND seq > ?';
      params.push(r.above);
    }
    if (r.upTo !== null) {
      where += ' AND seq <= ?';
      params.push(r.upTo);
    }
    const cap = MAX_DIVERGENT_KEYS + 1;
    const ns = await q.all<{ node_id: string }>(
      `SELECT DISTINCT node_id FROM graph_nodes WHERE ${where} LIMIT ${cap}`,
      params,
    );
    for (const n of ns) nodes.add(n.node_id);
    const es = await q.all<{ from_id: string; rel: string; to_id: string }>(
      `SELECT DISTINCT from_id, rel, to_id FROM graph_edges WHERE ${where} LIMIT ${cap}`,
      params,
    );
    for (const e of es)
      edges.set(`${e.from_id}\u0000${e.rel}\u0000${e.to_id}`, { from: e.from_id, rel: e.rel, to: e.to_id });
    if (nodes.size + edges.size > MAX_DIVERGENT_KEYS) {
      throw new NoemaError(
        'DIVERGENCE_TOO_LARGE',
        `more than ${MAX_DIVERGENT_KEYS} keys differ between the branches`,
        {
          details: { max_keys: MAX_DIVERGENT_KEYS },
          hint: 'compare narrower branches (e.g. a branch with its base)',
          status: 400,
        },
      );
    }
  }
  return { nodes: [...nodes], edges: [...edges.values()] };
}
