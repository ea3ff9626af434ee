/**
 * branchmind_graph_conflicts / _conflict_show / _conflict_resolve: list a destination's merge
 * conflicts, show one with its base/theirs/ours snapshots, and resolve it explicitly.
 */
import { fitToBudget } from '../../../core/budget.ts';
import { invalidInput } from '../../../core/errors.ts';
import type { SqlValue, Store } from '../../../store/store.ts';
import { lockWorkspaceWriters } from '../seq.ts';
import { requireWorkspace } from '../workspaces.ts';
import { assertFits, cursorArg, intArg, maxCharsArg } from './args.ts';
import {
  CONFLICT_COLUMNS,
  type ConflictKey,
  type ConflictRow,
  type GraphConflict,
  requireConflict,
  toConflict,
} from './conflict-store.ts';
import { mergeOrigin } from './merge.ts';
import { resolveBranchDoc } from './ref.ts';
import type { EdgeContent, GraphEdge, GraphNode, NodeContent, Pagination } from './types.ts';
import { writeVersions } from './write.ts';

export interface ConflictSummary {
  conflict_id: string;
  kind: 'node' | 'edge';
  key: ConflictKey;
  status: 'open' | 'resolved';
  created_at_ms: number;
}

export interface GraphConflictsOutput {
  into: string;
  doc: string;
  conflicts: ConflictSummary[];
  pagination: Pagination;
  truncated: boolean;
}

export async function graphConflicts(
  store: Store,
  input: {
    workspace: string;
    into: unknown;
    doc?: unknown;
    status?: unknown;
    cursor?: unknown;
    limit?: unknown;
    max_chars?: unknown;
  },
): Promise<GraphConflictsOutput> {
  if (input.status !== undefined && input.status !== 'open' && input.status !== 'resolved') {
    throw invalidInput('status must be "open" or "resolved"', { field: 'status' });
  }
  const cursor = cursorArg(input.cursor);
  const limit = intArg(input.limit, 'limit', 50, 1, 500);
  const maxChars = maxCharsArg(input.max_chars);
  await requireWorkspace(store, input.workspace);
  const into = await resolveBranchDoc(store, input.workspace, input.into, 'into', input.doc);
  let sql = `SELECT ${CONFLICT_COLUMNS} FROM graph_conflicts WHERE workspace = ? AND into_branch = ? AND doc = ?`;
  const params: SqlValue[] = [input.workspace, into.branch, into.doc];
  if (input.status !== undefined) {
    sql += ' AND status = ?';
    params.push(input.status as string);
  }
  if (cursor !== null) {
    sql += ' AND seq < ?';
    params.push(cursor);
  }
  const rows = await store.all<ConflictRow>(`${sql} ORDER BY seq DESC LIMIT ?`, [...params, limit + 1]);
  const more = rows.length > limit;
  const items = rows.slice(0, limit).map((r) => ({ seq: Number(r.seq), c: toConflict(r) }));
  const fitted = fitToBudget({
    items,
    maxChars,
    dropFrom: 'end',
    build: (kept, cut): GraphConflictsOutput => {
      const hasMore = more || cut;
      const pagination: Pagination = { cursor, has_more: hasMore, limit, count: kept.length };
      if (hasMore && kept.length > 0) pagination.next_cursor = kept.at(-1)!.seq;
      return {
        into: into.branch,
        doc: into.doc,
        conflicts: kept.map(({ c }) => ({
          conflict_id: c.conflict_id,
          kind: c.kind,
          key: c.key,
          status: c.status,
          created_at_ms: c.created_at_ms,
        })),
        pagination,
        truncated: cut,
      };
    },
  });
  return fitted.value as GraphConflictsOutput;
}

export async function graphConflictShow(
  store: Store,
  input: { workspace: string; conflict_id: unknown; max_chars?: unknown },
): Promise<{ conflict: GraphConflict; truncated: boolean }> {
  const maxChars = maxCharsArg(input.max_chars);
  await requireWorkspace(store, input.workspace);
  const conflict = await requireConflict(store, input.workspace, input.conflict_id);
  // One indivisible record (snapshots are bounded by the graph's field limits): never cut silently.
  return assertFits({ conflict, truncated: false }, maxChars, 'this conflict');
}

export interface GraphConflictResolveOutput {
  conflict_id: string;
  status: 'resolved';
  resolution: 'use_from' | 'use_into';
  applied: boolean;
  last_seq?: number;
}

/**
 * `use_from` writes the `from` snapshot into `into` as a new version, `use_into` keeps the
 * destination as is; both mark the conflict resolved in the same transaction. Resolving an
 * already resolved conflict changes nothing.
 */
export async function graphConflictResolve(
  store: Store,
  input: { workspace: string; conflict_id: unknown; resolution: unknown },
): Promise<GraphConflictResolveOutput> {
  if (input.resolution !== 'use_from' && input.resolution !== 'use_into') {
    throw invalidInput('resolution must be "use_from" or "use_into"', { field: 'resolution' });
  }
  const resolution = input.resolution;
  return store.transaction(async (tx) => {
    await lockWorkspaceWriters(tx, input.workspace);
    await requireWorkspace(tx, input.workspace);
    const c = await requireConflict(tx, input.workspace, input.conflict_id);
    if (c.status === 'resolved') {
      return {
        conflict_id: c.conflict_id,
        status: 'resolved',
        resolution: c.resolution ?? resolution,
        applied: false,
      };
    }
    const out: GraphConflictResolveOutput = {
      conflict_id: c.conflict_id,
      status: 'resolved',
      resolution,
      applied: false,
    };
    if (resolution === 'use_from' && c.theirs !== null) {
      const {
        last_seq,
        last_ts_ms: _t,
        ...content
      } = c.theirs as (GraphNode | GraphEdge) & Record<string, unknown>;
      const origin = mergeOrigin(c.from, last_seq);
      const written = await writeVersions(
        tx,
        { workspace: input.workspace, doc: c.doc },
        c.into,
        c.kind === 'node'
          ? [{ kind: 'node', content: content as unknown as NodeContent, origin }]
          : [{ kind: 'edge', content: content as unknown as EdgeContent, origin }],
      );
      out.applied = true;
      out.last_seq = written.last_seq;
    }
    await tx.run(
      "UPDATE graph_conflicts SET status = 'resolved', resolution = ?, resolved_at_ms = ? WHERE conflict_id = ? AND workspace = ?",
      [resolution, Date.now(), c.conflict_id, input.workspace],
    );
    return out;
  });
}
