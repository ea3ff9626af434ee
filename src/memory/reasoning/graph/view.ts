/**
 * The effective view of a graph document on a branch: the latest visible version per key across
 * the branch's effective sources (own rows, then each ancestor's rows with `seq <= cutoff`).
 *
 * Because a branch's own versions are always newer than anything it inherits (they are written
 * after its base_seq), "latest per key" is "the version from the closest source that has one".
 * So a branch's own state is its `is_head` rows (indexed, never a scan of old versions), and an
 * inherited candidate qualifies when it is the newest in its source up to the cutoff and no
 * closer source has the key. Sources without rows for the doc are pruned first.
 */
import type { Queryable, SqlValue } from '../../../store/store.ts';
import type { EffectiveSource } from '../branches.ts';
import { EDGE_COLUMNS, type EdgeRow, NODE_COLUMNS, type NodeRow } from './rows.ts';
import type { EdgeKey, GraphScope } from './types.ts';

/** A SQL condition on the candidate row (alias `v`) with its parameters. */
export interface Where {
  sql: string;
  params: SqlValue[];
  /**
   * The condition pins keys (ids / endpoints): sort without the seq index so the planner looks
   * the keys up instead of walking every head in seq order until it has found them all.
   */
  keyed?: boolean;
}

export interface PageOptions {
  /** Only rows with `seq < before` (tail pagination). */
  before?: number | null;
  limit: number;
  /** Include tombstones (diff, merge, key lookups); queries leave them out. */
  includeDeleted?: boolean;
}

export type Kind = 'node' | 'edge';

const TABLE: Record<Kind, string> = { node: 'graph_nodes', edge: 'graph_edges' };
export const COLUMNS: Record<Kind, string> = { node: NODE_COLUMNS, edge: EDGE_COLUMNS };
const SAME_KEY: Record<Kind, string> = {
  node: 'w.node_id = v.node_id',
  edge: 'w.from_id = v.from_id AND w.rel = v.rel AND w.to_id = v.to_id',
};

/** Drops sources that hold no version of this doc within their cutoff (most ancestors, usually). */
export async function pruneSources(
  q: Queryable,
  scope: GraphScope,
  sources: readonly EffectiveSource[],
): Promise<EffectiveSource[]> {
  if (sources.length === 1 && sources[0]!.cutoff === null) return [...sources];
  const out: EffectiveSource[] = [];
  for (const s of sources) {
    const cut = s.cutoff === null ? '' : ' AND seq <= ?';
    const params: SqlValue[] = [scope.workspace, s.branch, scope.doc];
    if (s.cutoff !== null) params.push(s.cutoff);
    const node = await q.get(
      `SELECT 1 AS x FROM graph_nodes WHERE workspace = ? AND branch = ? AND doc = ?${cut} LIMIT 1`,
      params,
    );
    const edge = node
      ? node
      : await q.get(
          `SELECT 1 AS x FROM graph_edges WHERE workspace = ? AND branch = ? AND doc = ?${cut} LIMIT 1`,
          params,
        );
    if (edge) out.push(s);
  }
  return out;
}

/** `FROM … WHERE …` selecting source i's effective candidates (alias `v`). */
export function sourceClause(
  kind: Kind,
  scope: GraphScope,
  sources: readonly EffectiveSource[],
  i: number,
  where: Where,
  opts: Omit<PageOptions, 'limit'>,
): Where {
  const s = sources[i]!;
  const params: SqlValue[] = [scope.workspace, s.branch, scope.doc];
  let sql = `FROM ${TABLE[kind]} v WHERE v.workspace = ? AND v.branch = ? AND v.doc = ?`;
  if (s.cutoff === null) {
    sql += ' AND v.is_head = 1';
  } else {
    // Newest version of its key in this source up to the cutoff: superseded only after the cutoff.
    sql += ' AND v.seq <= ? AND (v.next_seq IS NULL OR v.next_seq > ?)';
    params.push(s.cutoff, s.cutoff);
  }
  for (let j = 0; j < i; j++) {
    const c = sources[j]!;
    sql += ` AND NOT EXISTS (SELECT 1 FROM ${TABLE[kind]} w WHERE w.workspace = v.workspace AND w.branch = ?
      AND w.doc = v.doc AND ${SAME_KEY[kind]}${c.cutoff === null ? '' : ' AND w.seq <= ?'})`;
    params.push(c.branch);
    if (c.cutoff !== null) params.push(c.cutoff);
  }
  if (opts.before !== undefined && opts.before !== null) {
    sql += ' AND v.seq < ?';
    params.push(opts.before);
  }
  if (!opts.includeDeleted) sql += ' AND v.deleted = 0';
  if (where.sql) {
    sql += ` AND (${where.sql})`;
    params.push(...where.params);
  }
  return { sql, params };
}

async function sourcePage<R>(
  q: Queryable,
  kind: Kind,
  scope: GraphScope,
  sources: readonly EffectiveSource[],
  i: number,
  where: Where,
  opts: PageOptions,
): Promise<R[]> {
  const c = sourceClause(kind, scope, sources, i, where, opts);
  const order = where.keyed ? '(v.seq + 0)' : 'v.seq';
  return q.all(`SELECT ${COLUMNS[kind]} ${c.sql} ORDER BY ${order} DESC LIMIT ?`, [
    ...c.params,
    opts.limit,
  ]) as Promise<R[]>;
}

/** Number of live (non-deleted) effective rows matching `where`. */
export async function countEffective(
  q: Queryable,
  kind: Kind,
  scope: GraphScope,
  sources: readonly EffectiveSource[],
  where: Where = { sql: '', params: [] },
): Promise<number> {
  let n = 0;
  for (let i = 0; i < sources.length; i++) {
    const c = sourceClause(kind, scope, sources, i, where, {});
    const row = await q.get<{ n: number }>(`SELECT COUNT(*) AS n ${c.sql}`, c.params);
    n += Number(row?.n ?? 0);
  }
  return n;
}

/** Live effective rows grouped by one column (think_context's stats.by_type). */
export async function countEffectiveBy(
  q: Queryable,
  kind: Kind,
  scope: GraphScope,
  sources: readonly EffectiveSource[],
  column: 'type',
  where: Where,
): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (let i = 0; i < sources.length; i++) {
    const c = sourceClause(kind, scope, sources, i, where, {});
    const rows = await q.all<{ k: string; n: number }>(
      `SELECT v.${column} AS k, COUNT(*) AS n ${c.sql} GROUP BY v.${column}`,
      c.params,
    );
    for (const r of rows) out.set(r.k, (out.get(r.k) ?? 0) + Number(r.n));
  }
  return out;
}

/** Effective rows matching `where`, newest first, at most `limit`. `sources` should be pruned. */
async function effectivePage<R extends { seq: number }>(
  q: Queryable,
  kind: Kind,
  scope: GraphScope,
  sources: readonly EffectiveSource[],
  where: Where,
  opts: PageOptions,
): Promise<R[]> {
  const all: R[] = [];
  for (let i = 0; i < sources.length; i++) {
    all.push(...(await sourcePage<R>(q, kind, scope, sources, i, where, opts)));
  }
  if (sources.length > 1) all.sort((a, b) => Number(b.seq) - Number(a.seq));
  return all.slice(0, opts.limit);
}

export function effectiveNodes(
  q: Queryable,
  scope: GraphScope,
  sources: readonly EffectiveSource[],
  where: Where,
  opts: PageOptions,
): Promise<NodeRow[]> {
  return effectivePage<NodeRow>(q, 'node', scope, sources, where, opts);
}

export function effectiveEdges(
  q: Queryable,
  scope: GraphScope,
  sources: readonly EffectiveSource[],
  where: Where,
  opts: PageOptions,
): Promise<EdgeRow[]> {
  return effectivePage<EdgeRow>(q, 'edge', scope, sources, where, opts);
}

const CHUNK = 200;

export function placeholders(n: number): string {
  return new Array(n).fill('?').join(', ');
}

/** Effective state (tombstones included) of each given node id that has any visible version. */
export async function nodesByIds(
  q: Queryable,
  scope: GraphScope,
  sources: readonly EffectiveSource[],
  ids: readonly string[],
): Promise<Map<string, NodeRow>> {
  const out = new Map<string, NodeRow>();
  const unique = [...new Set(ids)];
  for (let i = 0; i < unique.length; i += CHUNK) {
    const part = unique.slice(i, i + CHUNK);
    const rows = await effectiveNodes(
      q,
      scope,
      sources,
      { sql: `v.node_id IN (${placeholders(part.length)})`, params: part, keyed: true },
      { limit: part.length, includeDeleted: true },
    );
    for (const r of rows) out.set(r.node_id, r);
  }
  return out;
}

export function edgeMapKey(k: EdgeKey | EdgeRow): string {
  return 'from_id' in k
    ? `${k.from_id}\u0000${k.rel}\u0000${k.to_id}`
    : `${k.from}\u0000${k.rel}\u0000${k.to}`;
}

/** Effective state (tombstones included) of each given edge key that has any visible version. */
export async function edgesByKeys(
  q: Queryable,
  scope: GraphScope,
  sources: readonly EffectiveSource[],
  keys: readonly EdgeKey[],
): Promise<Map<string, EdgeRow>> {
  const out = new Map<string, EdgeRow>();
  const unique = [...new Map(keys.map((k) => [edgeMapKey(k), k])).values()];
  for (let i = 0; i < unique.length; i += CHUNK) {
    const part = unique.slice(i, i + CHUNK);
    const rows = await effectiveEdges(
      q,
      scope,
      sources,
      {
        sql: part.map(() => '(v.from_id = ? AND v.rel = ? AND v.to_id = ?)').join(' OR '),
        params: part.flatMap((k) => [k.from, k.rel, k.to]),
        keyed: true,
      },
      { limit: part.length, includeDeleted: true },
    );
    for (const r of rows) out.set(edgeMapKey(r), r);
  }
  return out;
}

/** The view of `sources` as it was at `seq` (every cutoff clamped): a merge's base snapshot. */
export function sourcesAt(sources: readonly EffectiveSource[], seq: number): EffectiveSource[] {
  return sources.map((s) => ({
    branch: s.branch,
    cutoff: s.cutoff === null ? seq : Math.min(s.cutoff, seq),
  }));
}
