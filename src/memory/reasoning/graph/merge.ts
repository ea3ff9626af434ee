/**
 * branchmind_graph_merge: 3-way merge of a derived branch's graph changes back into its base.
 * Keys `from` changed since branching are applied to `into` unless `into` changed them
 * differently since the base snapshot; those become conflict entities and are skipped.
 * Deterministic and idempotent: equal states are skipped, conflict ids are content-derived.
 */
import { NoemaError } from '../../../core/errors.ts';
import type { Queryable, Store } from '../../../store/store.ts';
import { requireBranch } from '../branches.ts';
import { lockWorkspaceWriters } from '../seq.ts';
import { requireWorkspace } from '../workspaces.ts';
import { boolArg, cursorArg, intArg } from './args.ts';
import { conflictExists, conflictId, type GraphConflict, insertConflict } from './conflict-store.ts';
import { decideMerge } from './merge-decision.ts';
import { resolveBranchDoc, viewSources } from './ref.ts';
import {
  EDGE_COLUMNS,
  type EdgeRow,
  edgeContent,
  NODE_COLUMNS,
  type NodeRow,
  nodeContent,
  toEdge,
  toNode,
} from './rows.ts';
import type { GraphScope, Pagination } from './types.ts';
import { edgeMapKey, edgesByKeys, nodesByIds, sourcesAt } from './view.ts';
import { type VersionWrite, writeVersions } from './write.ts';

export interface GraphMergeInput {
  workspace: string;
  from: unknown;
  into: unknown;
  doc?: unknown;
  cursor?: unknown;
  limit?: unknown;
  dry_run?: unknown;
}

export interface GraphMergeOutput {
  from: string;
  into: string;
  doc: string;
  merged: number;
  skipped: number;
  conflicts_created: number;
  conflict_ids?: string[];
  dry_run: boolean;
  pagination: Pagination;
}

/** Origin tag of versions a merge copies from `from`. */
export function mergeOrigin(from: string, seq: number): string {
  return `merge:${from}:${seq}`;
}

type Changed = { kind: 'node'; row: NodeRow } | { kind: 'edge'; row: EdgeRow };

/** `from`'s own current versions (= keys it changed since branching), newest first. */
async function changedOnFrom(
  q: Queryable,
  scope: GraphScope,
  from: string,
  before: number | null,
  limit: number,
) {
  const cut = before === null ? '' : ' AND seq < ?';
  const params = [scope.workspace, from, scope.doc, ...(before === null ? [] : [before]), limit];
  const where = `WHERE workspace = ? AND branch = ? AND doc = ? AND is_head = 1${cut} ORDER BY seq DESC LIMIT ?`;
  const nodes = await q.all<NodeRow>(`SELECT ${NODE_COLUMNS} FROM graph_nodes ${where}`, params);
  const edges = await q.all<EdgeRow>(`SELECT ${EDGE_COLUMNS} FROM graph_edges ${where}`, params);
  const all: Changed[] = [
    ...nodes.map((row) => ({ kind: 'node' as const, row })),
    ...edges.map((row) => ({ kind: 'edge' as const, row })),
  ];
  return all.sort((a, b) => Number(b.row.seq) - Number(a.row.seq)).slice(0, limit);
}

interface MergePlan {
  out: GraphMergeOutput;
  scope: GraphScope;
  writes: VersionWrite[];
  conflicts: GraphConflict[];
}

export async function graphMerge(store: Store, input: GraphMergeInput): Promise<GraphMergeOutput> {
  const cursor = cursorArg(input.cursor);
  const limit = intArg(input.limit, 'limit', 200, 1, 1000);
  const dryRun = boolArg(input.dry_run, 'dry_run', false);
  if (dryRun) {
    const plan = await planMerge(store, input, cursor, limit);
    for (const c of plan.conflicts) {
      if (!(await conflictExists(store, input.workspace, c.conflict_id))) plan.out.conflicts_created++;
    }
    return plan.out;
  }
  return store.transaction(async (tx) => {
    await lockWorkspaceWriters(tx, input.workspace);
    const plan = await planMerge(tx, input, cursor, limit);
    if (plan.writes.length > 0) await writeVersions(tx, plan.scope, plan.out.into, plan.writes);
    for (const c of plan.conflicts)
      if (await insertConflict(tx, input.workspace, c)) plan.out.conflicts_created++;
    return plan.out;
  });
}

/** Decides every key of one page; writes nothing. */
async function planMerge(
  q: Queryable,
  input: GraphMergeInput,
  cursor: number | null,
  limit: number,
): Promise<MergePlan> {
  await requireWorkspace(q, input.workspace);
  const from = await resolveBranchDoc(q, input.workspace, input.from, 'from', input.doc);
  const into = await resolveBranchDoc(q, input.workspace, input.into, 'into', input.doc);
  const fromRow = await requireBranch(q, input.workspace, from.branch);
  if (fromRow.base_branch !== into.branch || fromRow.base_seq === null) {
    throw new NoemaError(
      'MERGE_NOT_SUPPORTED',
      `graph merge supports only merging a branch back into its base: "${from.branch}" was branched from ${
        fromRow.base_branch === null ? 'nothing' : `"${fromRow.base_branch}"`
      }, not "${into.branch}"`,
      {
        details: { from: from.branch, into: into.branch, base_branch: fromRow.base_branch },
        hint: fromRow.base_branch
          ? `merge into "${fromRow.base_branch}" instead`
          : 'create the branch with branchmind_branch_create from the branch you want to merge into',
        status: 400,
      },
    );
  }
  const scope: GraphScope = { workspace: input.workspace, doc: from.doc };
  const page = await changedOnFrom(q, scope, from.branch, cursor, limit + 1);
  const more = page.length > limit;
  const items = page.slice(0, limit);

  const intoSources = await viewSources(q, scope, into.branch);
  const baseSources = sourcesAt(intoSources, fromRow.base_seq);
  const nodeIds = items.flatMap((c) => (c.kind === 'node' ? [c.row.node_id] : []));
  const edgeKeys = items.flatMap((c) =>
    c.kind === 'edge' ? [{ from: c.row.from_id, rel: c.row.rel, to: c.row.to_id }] : [],
  );
  const oursNodes = await nodesByIds(q, scope, intoSources, nodeIds);
  const baseNodes = await nodesByIds(q, scope, baseSources, nodeIds);
  const oursEdges = await edgesByKeys(q, scope, intoSources, edgeKeys);
  const baseEdges = await edgesByKeys(q, scope, baseSources, edgeKeys);

  const writes: VersionWrite[] = [];
  const conflicts: GraphConflict[] = [];
  let skipped = 0;
  const now = Date.now();
  // Oldest first, so copies keep `from`'s relative order of changes.
  for (const c of [...items].reverse()) {
    const theirsSeq = Number(c.row.seq);
    const origin = mergeOrigin(from.branch, theirsSeq);
    const oursRow = c.kind === 'node' ? oursNodes.get(c.row.node_id) : oursEdges.get(edgeMapKey(c.row));
    const baseRow = c.kind === 'node' ? baseNodes.get(c.row.node_id) : baseEdges.get(edgeMapKey(c.row));
    const toState = (r: NodeRow | EdgeRow | undefined) =>
      r === undefined ? null : c.kind === 'node' ? toNode(r as NodeRow) : toEdge(r as EdgeRow);
    const theirs = toState(c.row);
    const ours = toState(oursRow);
    const base = toState(baseRow);
    const decision = decideMerge({
      base,
      theirs,
      ours,
      oursMergedFromSameBranch: oursRow?.origin?.startsWith(`merge:${from.branch}:`) ?? false,
    });
    if (decision.action === 'apply') {
      writes.push(
        c.kind === 'node'
          ? { kind: 'node', content: nodeContent(toNode(c.row)), origin }
          : { kind: 'edge', content: edgeContent(toEdge(c.row)), origin },
      );
      continue;
    }
    skipped++;
    if (decision.action === 'skip') continue;
    const key = c.kind === 'node' ? c.row.node_id : { from: c.row.from_id, rel: c.row.rel, to: c.row.to_id };
    const id = conflictId({
      workspace: input.workspace,
      from: from.branch,
      into: into.branch,
      doc: scope.doc,
      kind: c.kind,
      key,
      theirs,
      ours,
    });
    conflicts.push({
      conflict_id: id,
      kind: c.kind,
      key,
      from: from.branch,
      into: into.branch,
      doc: scope.doc,
      status: 'open',
      base,
      theirs,
      ours,
      created_at_ms: now,
    });
  }

  const pagination: Pagination = { cursor, has_more: more, limit, count: items.length };
  if (more) pagination.next_cursor = Number(items.at(-1)!.row.seq);
  const out: GraphMergeOutput = {
    from: from.branch,
    into: into.branch,
    doc: scope.doc,
    merged: writes.length,
    skipped,
    conflicts_created: 0,
    dry_run: input.dry_run === true,
    pagination,
  };
  if (conflicts.length > 0) out.conflict_ids = conflicts.map((c) => c.conflict_id);
  return { out, scope, writes, conflicts };
}
