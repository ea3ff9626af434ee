/**
 * Read-only listings for surfaces: a page of runs (newest first, keyset-paginated by `run_pk`) and
 * a stored graph by content hash. The full run view is `Engine.getRun`.
 */
import { NoemaError } from '../../core/errors.ts';
import type { Queryable, SqlValue } from '../../store/store.ts';
import type { GraphSpec, RunStatus } from '../engine.ts';

export interface RunSummary {
  run_id: string;
  graph_hash: string;
  status: RunStatus;
  error: unknown;
  created_at: string;
  updated_at: string;
  /** Opaque pagination key (the previous page's `next_cursor`). */
  cursor: string;
}

export interface RunFilter {
  status?: string;
  graph_hash?: string;
  /** Runs older than this cursor. */
  cursor?: string;
  limit: number;
}

export async function listRuns(
  q: Queryable,
  filter: RunFilter,
): Promise<{ items: RunSummary[]; next_cursor: string | null }> {
  const where: string[] = [];
  const params: SqlValue[] = [];
  if (filter.status !== undefined) {
    where.push('status = ?');
    params.push(filter.status);
  }
  if (filter.graph_hash !== undefined) {
    where.push('graph_hash = ?');
    params.push(filter.graph_hash);
  }
  if (filter.cursor !== undefined) {
    if (!/^\d{1,15}$/.test(filter.cursor)) {
      throw new NoemaError('INVALID_INPUT', 'cursor is not a cursor this list returned', {
        status: 400,
        details: { cursor: filter.cursor },
      });
    }
    where.push('run_pk < ?');
    params.push(Number(filter.cursor));
  }
  const rows = await q.all<Record<string, unknown>>(
    `SELECT run_pk, run_id, graph_hash, status, error, created_at, updated_at FROM engine_runs
     ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY run_pk DESC LIMIT ?`,
    [...params, filter.limit + 1],
  );
  const items = rows.slice(0, filter.limit).map((r) => ({
    run_id: String(r.run_id),
    graph_hash: String(r.graph_hash),
    status: r.status as RunStatus,
    error: typeof r.error === 'string' ? JSON.parse(r.error) : null,
    created_at: new Date(Number(r.created_at)).toISOString(),
    updated_at: new Date(Number(r.updated_at)).toISOString(),
    cursor: String(r.run_pk),
  }));
  return { items, next_cursor: rows.length > filter.limit ? (items.at(-1)?.cursor ?? null) : null };
}

export async function getGraph(
  q: Queryable,
  graph_hash: string,
): Promise<{ graph_hash: string; graph: GraphSpec; created_at: string }> {
  const r = await q.get<{ body: string; created_at: unknown }>(
    'SELECT body, created_at FROM engine_graphs WHERE graph_hash = ?',
    [graph_hash],
  );
  if (!r)
    throw new NoemaError('UNKNOWN_GRAPH', `no graph ${graph_hash}`, { status: 404, details: { graph_hash } });
  return {
    graph_hash,
    graph: JSON.parse(r.body) as GraphSpec,
    created_at: new Date(Number(r.created_at)).toISOString(),
  };
}

/** A run's id and status (cheap: no journal read); UNKNOWN_RUN (404) when there is none. */
export async function getRunStatus(
  q: Queryable,
  run_id: string,
): Promise<{ run_id: string; status: RunStatus }> {
  const r = await q.get<{ status: RunStatus }>('SELECT status FROM engine_runs WHERE run_id = ?', [run_id]);
  if (!r) throw new NoemaError('UNKNOWN_RUN', `no run ${run_id}`, { status: 404, details: { run_id } });
  return { run_id, status: r.status };
}

/** Stored graphs by content hash (keyset-paginated by hash, the primary key). */
export async function listGraphs(
  q: Queryable,
  filter: { cursor?: string; limit: number },
): Promise<{ items: Array<{ graph_hash: string; created_at: string }>; next_cursor: string | null }> {
  const rows = await q.all<{ graph_hash: string; created_at: unknown }>(
    `SELECT graph_hash, created_at FROM engine_graphs ${filter.cursor === undefined ? '' : 'WHERE graph_hash > ?'}
     ORDER BY graph_hash LIMIT ?`,
    filter.cursor === undefined ? [filter.limit + 1] : [filter.cursor, filter.limit + 1],
  );
  const items = rows.slice(0, filter.limit).map((r) => ({
    graph_hash: String(r.graph_hash),
    created_at: new Date(Number(r.created_at)).toISOString(),
  }));
  return { items, next_cursor: rows.length > filter.limit ? (items.at(-1)?.graph_hash ?? null) : null };
}
