/** Conflict entities of graph merges: deterministic ids, rows ↔ public shape, insert-once. */
import { canonicalJson } from '../../../core/canonical-json.ts';
import { NoemaError } from '../../../core/errors.ts';
import { sha256Hex } from '../../../core/hash.ts';
import type { Queryable, Transaction } from '../../../store/store.ts';
import { allocateSeq } from '../seq.ts';
import type { EdgeKey, GraphEdge, GraphNode } from './types.ts';

export type ConflictKey = string | EdgeKey;
export type ConflictState = GraphNode | GraphEdge | null;

export interface GraphConflict {
  conflict_id: string;
  kind: 'node' | 'edge';
  key: ConflictKey;
  from: string;
  into: string;
  doc: string;
  status: 'open' | 'resolved';
  base: ConflictState;
  theirs: ConflictState;
  ours: ConflictState;
  created_at_ms: number;
  resolved_at_ms?: number;
  resolution?: 'use_from' | 'use_into';
}

export type ConflictRow = {
  conflict_id: string;
  seq: number;
  from_branch: string;
  into_branch: string;
  doc: string;
  kind: string;
  key: string;
  status: string;
  base: string | null;
  theirs: string | null;
  ours: string | null;
  resolution: string | null;
  created_at_ms: number;
  resolved_at_ms: number | null;
};

export const CONFLICT_COLUMNS =
  'conflict_id, seq, from_branch, into_branch, doc, kind, key, status, base, theirs, ours, resolution, created_at_ms, resolved_at_ms';

/**
 * The same divergence (same key, same `from` version, same `into` version) always gets the same
 * id, which is what makes conflict discovery idempotent across merge re-runs.
 */
export function conflictId(c: {
  workspace: string;
  from: string;
  into: string;
  doc: string;
  kind: string;
  key: ConflictKey;
  theirs: ConflictState;
  ours: ConflictState;
}): string {
  const basis = [
    c.workspace,
    c.from,
    c.into,
    c.doc,
    c.kind,
    c.key,
    c.theirs?.last_seq ?? null,
    c.ours?.last_seq ?? null,
  ];
  return `conflict-${sha256Hex(canonicalJson(basis)).slice(0, 32)}`;
}

export function toConflict(r: ConflictRow): GraphConflict {
  const parse = (s: string | null) => (s === null || s === undefined ? null : JSON.parse(s));
  const c: GraphConflict = {
    conflict_id: r.conflict_id,
    kind: r.kind as 'node' | 'edge',
    key: JSON.parse(r.key) as ConflictKey,
    from: r.from_branch,
    into: r.into_branch,
    doc: r.doc,
    status: r.status as 'open' | 'resolved',
    base: parse(r.base),
    theirs: parse(r.theirs),
    ours: parse(r.ours),
    created_at_ms: Number(r.created_at_ms),
  };
  if (r.resolved_at_ms !== null && r.resolved_at_ms !== undefined)
    c.resolved_at_ms = Number(r.resolved_at_ms);
  if (r.resolution) c.resolution = r.resolution as 'use_from' | 'use_into';
  return c;
}

export async function conflictExists(q: Queryable, workspace: string, id: string): Promise<boolean> {
  return (
    (await q.get('SELECT 1 AS x FROM graph_conflicts WHERE conflict_id = ? AND workspace = ?', [
      id,
      workspace,
    ])) !== undefined
  );
}

/** Inserts the conflict unless it exists; true when this call created it. */
export async function insertConflict(tx: Transaction, workspace: string, c: GraphConflict): Promise<boolean> {
  if (await conflictExists(tx, workspace, c.conflict_id)) return false;
  const seq = await allocateSeq(tx, workspace, 1);
  const res = await tx.run(
    `INSERT INTO graph_conflicts (${CONFLICT_COLUMNS}, workspace) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (conflict_id) DO NOTHING`,
    [
      c.conflict_id,
      seq,
      c.from,
      c.into,
      c.doc,
      c.kind,
      JSON.stringify(c.key),
      c.status,
      c.base === null ? null : JSON.stringify(c.base),
      c.theirs === null ? null : JSON.stringify(c.theirs),
      c.ours === null ? null : JSON.stringify(c.ours),
      null,
      c.created_at_ms,
      null,
      workspace,
    ],
  );
  return res.changes > 0;
}

export async function requireConflict(q: Queryable, workspace: string, id: unknown): Promise<GraphConflict> {
  const row =
    typeof id === 'string'
      ? await q.get<ConflictRow>(
          `SELECT ${CONFLICT_COLUMNS} FROM graph_conflicts WHERE conflict_id = ? AND workspace = ?`,
          [id, workspace],
        )
      : undefined;
  if (!row) {
    throw new NoemaError(
      'UNKNOWN_CONFLICT',
      `conflict ${JSON.stringify(id)} does not exist in workspace "${workspace}"`,
      {
        details: { workspace, conflict_id: id },
        hint: 'list conflicts with branchmind_graph_conflicts',
        status: 404,
      },
    );
  }
  return toConflict(row);
}
