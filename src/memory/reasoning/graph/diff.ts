/**
 * branchmind_graph_diff: node/edge states of `to` that differ from `from` (tombstones included),
 * newest first by `to.last_seq`, paginated by `seq < cursor`. Directional, like branchmind_diff.
 */
import { fitToBudget } from '../../../core/budget.ts';
import type { Store } from '../../../store/store.ts';
import { requireWorkspace } from '../workspaces.ts';
import { cursorArg, intArg, maxCharsArg } from './args.ts';
import { divergentKeys } from './divergence.ts';
import { resolveBranchDoc, viewSources } from './ref.ts';
import { sameState, toEdge, toNode } from './rows.ts';
import type { EdgeKey, GraphEdge, GraphNode, GraphScope, Pagination } from './types.ts';
import { edgesByKeys, nodesByIds } from './view.ts';

export interface GraphDiffInput {
  workspace: string;
  from: unknown;
  to: unknown;
  doc?: unknown;
  cursor?: unknown;
  limit?: unknown;
  max_chars?: unknown;
}

export type GraphChange =
  | { kind: 'node'; id: string; to: GraphNode }
  | { kind: 'edge'; key: EdgeKey; to: GraphEdge };

export interface GraphDiffOutput {
  from: string;
  to: string;
  doc: string;
  changes: GraphChange[];
  pagination: Pagination;
  truncated: boolean;
}

/** Every change of `to` relative to `from` (unpaged), newest first. Absent ≡ tombstone. */
export async function graphChanges(
  store: Store,
  scope: GraphScope,
  from: string,
  to: string,
): Promise<GraphChange[]> {
  const fromSources = await viewSources(store, scope, from);
  const toSources = await viewSources(store, scope, to);
  const keys = await divergentKeys(store, scope, toSources, fromSources);
  const [toNodes, fromNodes, toEdges, fromEdges] = [
    await nodesByIds(store, scope, toSources, keys.nodes),
    await nodesByIds(store, scope, fromSources, keys.nodes),
    await edgesByKeys(store, scope, toSources, keys.edges),
    await edgesByKeys(store, scope, fromSources, keys.edges),
  ];
  const changes: GraphChange[] = [];
  for (const [id, row] of toNodes) {
    const state = toNode(row);
    const other = fromNodes.get(id);
    if (!sameState(state, other ? toNode(other) : null)) changes.push({ kind: 'node', id, to: state });
  }
  for (const [k, row] of toEdges) {
    const state = toEdge(row);
    const other = fromEdges.get(k);
    if (!sameState(state, other ? toEdge(other) : null)) {
      changes.push({ kind: 'edge', key: { from: state.from, rel: state.rel, to: state.to }, to: state });
    }
  }
  return changes.sort((a, b) => b.to.last_seq - a.to.last_seq);
}

export async function graphDiff(store: Store, input: GraphDiffInput): Promise<GraphDiffOutput> {
  const cursor = cursorArg(input.cursor);
  const limit = intArg(input.limit, 'limit', 50, 1, 500);
  const maxChars = maxCharsArg(input.max_chars);
  await requireWorkspace(store, input.workspace);
  const from = await resolveBranchDoc(store, input.workspace, input.from, 'from', input.doc);
  const to = await resolveBranchDoc(store, input.workspace, input.to, 'to', input.doc);
  const scope = { workspace: input.workspace, doc: from.doc };
  const all = await graphChanges(store, scope, from.branch, to.branch);
  const after = cursor === null ? all : all.filter((c) => c.to.last_seq < cursor);
  const page = after.slice(0, limit);
  const more = after.length > limit;
  const fitted = fitToBudget({
    items: page,
    maxChars,
    dropFrom: 'end',
    build: (kept, cut): GraphDiffOutput => {
      const hasMore = more || cut;
      const pagination: Pagination = { cursor, has_more: hasMore, limit, count: kept.length };
      const last = kept.at(-1);
      if (hasMore && last) pagination.next_cursor = last.to.last_seq;
      return { from: from.branch, to: to.branch, doc: scope.doc, changes: kept, pagination, truncated: cut };
    },
  });
  return fitted.value as GraphDiffOutput;
}
