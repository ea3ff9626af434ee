/**
 * branchmind_graph_query: a bounded, filtered, recent-first slice of the effective graph view,
 * with the edges among the returned nodes. Cursor pagination by `last_seq < cursor`.
 */
import { fitToBudget } from '../../../core/budget.ts';
import type { SqlValue, Store } from '../../../store/store.ts';
import {
  boolArg,
  cursorArg,
  idsArg,
  intArg,
  labelsArg,
  likeEscape,
  maxCharsArg,
  statusArg,
  tagsArg,
  textArg,
} from './args.ts';
import { type GraphRefInput, resolveGraphRef, viewSources } from './ref.ts';
import { toEdge, toNode } from './rows.ts';
import { scanNodes } from './scan.ts';
import type { GraphEdge, GraphNode, Pagination } from './types.ts';
import { effectiveEdges, effectiveNodes, placeholders, type Where } from './view.ts';

export interface GraphQueryInput extends GraphRefInput {
  ids?: unknown;
  types?: unknown;
  status?: unknown;
  tags_any?: unknown;
  tags_all?: unknown;
  text?: unknown;
  cursor?: unknown;
  limit?: unknown;
  include_edges?: unknown;
  edges_limit?: unknown;
  max_chars?: unknown;
}

export interface GraphQueryOutput {
  branch: string;
  doc: string;
  nodes: GraphNode[];
  edges: GraphEdge[];
  pagination: Pagination;
  truncated: boolean;
}

export interface NodeFilter {
  ids?: string[] | undefined;
  types?: string[] | undefined;
  status?: string | undefined;
  tags_any?: string[] | undefined;
  tags_all?: string[] | undefined;
  text?: string | undefined;
}

/** The filter as a SQL condition on candidate rows `v`. */
export function nodeWhere(f: NodeFilter): Where {
  const parts: string[] = [];
  const params: SqlValue[] = [];
  if (f.ids) {
    parts.push(`v.node_id IN (${placeholders(f.ids.length)})`);
    params.push(...f.ids);
  }
  if (f.types) {
    parts.push(`v.type IN (${placeholders(f.types.length)})`);
    params.push(...f.types);
  }
  if (f.status !== undefined) {
    parts.push('v.status = ?');
    params.push(f.status);
  }
  if (f.tags_any) {
    parts.push(`(${f.tags_any.map(() => "v.tags LIKE ? ESCAPE '\\'").join(' OR ')})`);
    params.push(...f.tags_any.map((t) => `%|${likeEscape(t)}|%`));
  }
  for (const t of f.tags_all ?? []) {
    parts.push("v.tags LIKE ? ESCAPE '\\'");
    params.push(`%|${likeEscape(t)}|%`);
  }
  if (f.text !== undefined) {
    parts.push("v.search LIKE ? ESCAPE '\\'");
    params.push(`%${likeEscape(f.text.toLowerCase())}%`);
  }
  return { sql: parts.join(' AND '), params, keyed: f.ids !== undefined };
}

export async function graphQuery(store: Store, input: GraphQueryInput): Promise<GraphQueryOutput> {
  const filter: NodeFilter = {
    ids: idsArg(input.ids),
    types: labelsArg(input.types, 'types'),
    status: statusArg(input.status),
    tags_any: tagsArg(input.tags_any, 'tags_any'),
    tags_all: tagsArg(input.tags_all, 'tags_all'),
    text: textArg(input.text),
  };
  const cursor = cursorArg(input.cursor);
  const limit = intArg(input.limit, 'limit', 50, 1, 500);
  const includeEdges = boolArg(input.include_edges, 'include_edges', true);
  const edgesLimit = intArg(input.edges_limit, 'edges_limit', 200, 0, 2000);
  const maxChars = maxCharsArg(input.max_chars);

  const ref = await resolveGraphRef(store, input);
  const sources = await viewSources(store, ref.scope, ref.branch);
  // Unselective-by-index filters walk a bounded number of heads per call (see scan.ts).
  const scanned =
    filter.ids === undefined &&
    (filter.types ||
      filter.status !== undefined ||
      filter.tags_any ||
      filter.tags_all ||
      filter.text !== undefined);
  const where = nodeWhere(filter);
  const page = scanned
    ? await scanNodes(store, ref.scope, sources, where, { before: cursor, limit: limit + 1 })
    : {
        rows: await effectiveNodes(store, ref.scope, sources, where, { before: cursor, limit: limit + 1 }),
        frontier: null,
      };
  const rows = page.rows;
  const more = rows.length > limit || page.frontier !== null;
  const nodes = rows.slice(0, limit).map(toNode);

  let edges: GraphEdge[] = [];
  let edgesCut = false;
  if (includeEdges && nodes.length > 0 && edgesLimit > 0) {
    const ids = nodes.map((n) => n.id);
    const edgeRows = await effectiveEdges(
      store,
      ref.scope,
      sources,
      {
        sql: `v.from_id IN (${placeholders(ids.length)}) AND v.to_id IN (${placeholders(ids.length)})`,
        params: [...ids, ...ids],
        keyed: true,
      },
      { limit: edgesLimit + 1 },
    );
    edgesCut = edgeRows.length > edgesLimit;
    edges = edgeRows.slice(0, edgesLimit).map(toEdge);
  }

  const fitted = fitToBudget({
    items: nodes,
    maxChars,
    dropFrom: 'end',
    build: (kept, cut): GraphQueryOutput => {
      const keptIds = new Set(kept.map((n) => n.id));
      const last = kept.at(-1);
      const hasMore = more || cut;
      const pagination: Pagination = { cursor, has_more: hasMore, limit, count: kept.length };
      // A page cut by the budget or the limit continues after its last node; a page that only ran
      // out of scan budget continues at the scan frontier.
      if (hasMore && last && (cut || rows.length > limit)) pagination.next_cursor = last.last_seq;
      else if (hasMore && page.frontier !== null) pagination.next_cursor = page.frontier;
      else if (hasMore && last) pagination.next_cursor = last.last_seq;
      return {
        branch: ref.branch,
        doc: ref.scope.doc,
        nodes: kept,
        edges: cut ? edges.filter((e) => keptIds.has(e.from) && keptIds.has(e.to)) : edges,
        pagination,
        truncated: cut || edgesCut,
      };
    },
  });
  return fitted.value as GraphQueryOutput;
}
