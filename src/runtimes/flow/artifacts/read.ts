/** Reading `node_artifacts`: the serialized artifact (REST `item`, MCP, events) and filtered pages. */
import { invalidInput, NoemaError } from '../../../core/errors.ts';
import type { Json } from '../../../engine/index.ts';
import type { Queryable, SqlValue } from '../../../store/store.ts';
import type { FlowNodeType } from '../types.ts';

export interface NodeArtifact {
  artifact_id: number;
  flowchart_id: string;
  flowchart_run_id: string;
  flowchart_node_id: string;
  flowchart_node_type: FlowNodeType;
  node_run_id: string;
  artifact_type: string;
  plan_id: number | null;
  memory_id: number | null;
  milestone_id: number | null;
  payload: Json;
  request_id: string;
  correlation_id: string | null;
  retention_mode: string;
  created_at: string;
  expires_at: string | null;
}

const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));

export function toArtifact(r: Record<string, unknown>): NodeArtifact {
  return {
    artifact_id: Number(r.artifact_id),
    flowchart_id: r.flowchart_id as string,
    flowchart_run_id: r.flowchart_run_id as string,
    flowchart_node_id: r.flowchart_node_id as string,
    flowchart_node_type: r.flowchart_node_type as FlowNodeType,
    node_run_id: r.node_run_id as string,
    artifact_type: r.artifact_type as string,
    plan_id: num(r.plan_id),
    memory_id: num(r.memory_id),
    milestone_id: num(r.milestone_id),
    payload: JSON.parse(r.payload as string) as Json,
    request_id: r.request_id as string,
    correlation_id: (r.correlation_id as string | null) ?? null,
    retention_mode: r.retention_mode as string,
    created_at: new Date(Number(r.created_at_ms)).toISOString(),
    expires_at:
      r.expires_at_ms === null || r.expires_at_ms === undefined
        ? null
        : new Date(Number(r.expires_at_ms)).toISOString(),
  };
}

export interface ArtifactFilter {
  flowchart_id?: string;
  flowchart_run_id?: string;
  flowchart_node_id?: string;
  node_run_id?: string;
  flowchart_node_type?: string;
  artifact_type?: string;
  plan_id?: number;
  memory_id?: number;
  milestone_id?: number;
}

const FILTER_KEYS: Array<keyof ArtifactFilter> = [
  'flowchart_id',
  'flowchart_run_id',
  'flowchart_node_id',
  'node_run_id',
  'flowchart_node_type',
  'artifact_type',
  'plan_id',
  'memory_id',
  'milestone_id',
];

export const MAX_ARTIFACT_PAGE = 200;

export interface ArtifactPage {
  items: NodeArtifact[];
  count: number;
  limit: number;
  offset: number;
}

/** Newest first. `count` is the number of matching artifacts (not just this page). */
export async function listNodeArtifacts(
  q: Queryable,
  filter: ArtifactFilter,
  page: {
    limit?: number;
    offset?: number;
    /** Keyset paging: only artifacts older than this id. */
    before?: number;
  } = {},
): Promise<ArtifactPage> {
  const limit = page.limit ?? 50;
  const offset = page.offset ?? 0;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_ARTIFACT_PAGE)
    throw invalidInput(`limit must be an integer 1..${MAX_ARTIFACT_PAGE}`, { limit });
  if (!Number.isInteger(offset) || offset < 0)
    throw invalidInput('offset must be a non-negative integer', { offset });
  const where: string[] = [];
  const params: SqlValue[] = [];
  for (const k of FILTER_KEYS) {
    const v = filter[k];
    if (v === undefined) continue;
    where.push(`${k} = ?`);
    params.push(v);
  }
  const clause = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
  const keyset = page.before === undefined ? '' : `${where.length > 0 ? 'AND' : 'WHERE'} artifact_id < ?`;
  const rows = await q.all(
    `SELECT * FROM node_artifacts ${clause} ${keyset} ORDER BY artifact_id DESC LIMIT ? OFFSET ?`,
    [...params, ...(page.before === undefined ? [] : [page.before]), limit, offset],
  );
  const total = await q.get<{ n: number }>(`SELECT COUNT(*) AS n FROM node_artifacts ${clause}`, params);
  return { items: rows.map(toArtifact), count: Number(total?.n ?? 0), limit, offset };
}

export function unknownArtifact(artifact_id: unknown, scope: Record<string, unknown> = {}): NoemaError {
  return new NoemaError(
    'UNKNOWN_ARTIFACT',
    `no artifact ${String(artifact_id)}${Object.keys(scope).length ? ' in this scope' : ''}`,
    {
      status: 404,
      details: { artifact_id, ...scope },
    },
  );
}

/** One artifact; when `scope` is given the artifact must belong to it (else UNKNOWN_ARTIFACT). */
export async function getNodeArtifact(
  q: Queryable,
  artifact_id: number,
  scope: ArtifactFilter = {},
): Promise<NodeArtifact> {
  if (!Number.isInteger(artifact_id) || artifact_id < 1)
    throw invalidInput('artifact_id must be a positive integer', { artifact_id });
  const r = await q.get('SELECT * FROM node_artifacts WHERE artifact_id = ?', [artifact_id]);
  if (!r) throw unknownArtifact(artifact_id);
  const a = toArtifact(r);
  for (const k of FILTER_KEYS) {
    if (scope[k] !== undefined && a[k] !== scope[k])
      throw unknownArtifact(artifact_id, scope as Record<string, unknown>);
  }
  return a;
}

/** A node run's artifact of one type (at most one), or null (never written, or removed by retention). */
export async function findNodeArtifact(
  q: Queryable,
  node_run_id: string,
  artifact_type: string,
): Promise<NodeArtifact | null> {
  const r = await q.get('SELECT * FROM node_artifacts WHERE node_run_id = ? AND artifact_type = ?', [
    node_run_id,
    artifact_type,
  ]);
  return r ? toArtifact(r) : null;
}
