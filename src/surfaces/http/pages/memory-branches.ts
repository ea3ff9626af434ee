/**
 * Reading a reasoning-memory workspace beyond its tree: a branch's notes and graph content
 * (`/memory-workspaces/:workspace/branches/:branch`), the directional diff between two branches
 * (`…/diff?from=&to=`) and a graph merge conflict with base, theirs and ours (`…/conflicts/:conflict_id`).
 * Every read is bounded (a page of entries or nodes, a character budget) and pages on by cursor.
 */
import { invalidInput } from '../../../core/errors.ts';
import {
  DEFAULT_GRAPH_DOC,
  diff,
  type GraphConflict,
  type GraphEdge,
  type GraphNode,
  graphConflictShow,
  graphConflicts,
  graphDiff,
  graphQuery,
  show,
} from '../../../memory/index.ts';
import { defaultCatalog, navOf } from '../catalog/index.ts';
import { negotiate } from '../html/negotiate.ts';
import { h, jsonBlock, layout, type Markup } from '../html/render.ts';
import type { AppServices, Route, RouteContext } from '../route.ts';
import { enc, when } from './common.ts';

/** Entries, nodes and conflicts shown per page, and the character budget of each read. */
export const MEMORY_PAGE_LIMIT = 50;
export const MEMORY_PAGE_CHARS = 60_000;

export const memoryHrefs = {
  workspace: (ws: string) => `/memory-workspaces/${enc(ws)}`,
  branch: (ws: string, branch: string) => `/memory-workspaces/${enc(ws)}/branches/${enc(branch)}`,
  diff: (ws: string, from: string, to: string) =>
    `/memory-workspaces/${enc(ws)}/diff?${new URLSearchParams({ from, to })}`,
  conflict: (ws: string, id: string) => `/memory-workspaces/${enc(ws)}/conflicts/${enc(id)}`,
};

type Entry = { seq: number; ts: number; branch: string; kind: string; title?: string; content: string };

function entriesTable(ws: string, entries: readonly Entry[], empty: string): Markup {
  if (!entries.length) return h`<p class="muted">${empty}</p>`;
  return h`<div class="scroll"><table><thead><tr><th scope="col">seq</th><th scope="col">written</th><th scope="col">on</th><th scope="col">kind</th><th scope="col">note</th></tr></thead><tbody>${entries.map(
    (e) =>
      h`<tr id="seq-${String(e.seq)}"><td>${String(e.seq)}</td><td>${when(e.ts)}</td><td><a href="${memoryHrefs.branch(ws, e.branch)}">${e.branch}</a></td><td>${e.kind}</td><td>${
        e.title ? h`<strong>${e.title}</strong><br>` : ''
      }<pre tabindex="0">${e.content}</pre></td></tr>`,
  )}</tbody></table></div>`;
}

const nodeRow = (n: GraphNode): Markup =>
  h`<tr${n.deleted ? h` class="before"` : ''}><th scope="row">${n.id}</th><td>${n.type}</td><td>${n.title ?? ''}${
    n.text ? h`<pre tabindex="0">${n.text}</pre>` : ''
  }</td><td>${n.status ?? ''}</td><td>${n.tags.join(', ')}</td><td>${n.deleted ? 'deleted' : String(n.last_seq)}</td></tr>`;

function nodesTable(nodes: readonly GraphNode[], empty: string): Markup {
  if (!nodes.length) return h`<p class="muted">${empty}</p>`;
  return h`<div class="scroll"><table><thead><tr><th scope="col">node</th><th scope="col">type</th><th scope="col">title / text</th><th scope="col">status</th><th scope="col">tags</th><th scope="col">seq</th></tr></thead><tbody>${nodes.map(nodeRow)}</tbody></table></div>`;
}

function edgesTable(edges: readonly GraphEdge[], empty: string): Markup {
  if (!edges.length) return h`<p class="muted">${empty}</p>`;
  return h`<div class="scroll"><table><thead><tr><th scope="col">from</th><th scope="col">relation</th><th scope="col">to</th><th scope="col">seq</th></tr></thead><tbody>${edges.map(
    (e) =>
      h`<tr${e.deleted ? h` class="before"` : ''}><td>${e.from}</td><td>${e.rel}</td><td>${e.to}</td><td>${e.deleted ? 'deleted' : String(e.last_seq)}</td></tr>`,
  )}</tbody></table></div>`;
}

/** A "more" link keeping the page's other query parameters. */
function moreLink(ctx: RouteContext, name: string, next: number | undefined, label: string): Markup {
  if (next === undefined) return h``;
  const q = new URLSearchParams(ctx.url.searchParams);
  q.set(name, String(next));
  return h`<p><a href="${ctx.url.pathname}?${q.toString()}">${label}</a></p>`;
}

function cursorParam(ctx: RouteContext, name: string): number | undefined {
  const v = ctx.url.searchParams.get(name);
  if (v === null || v === '') return undefined;
  if (!/^\d{1,15}$/.test(v)) throw invalidInput(`${name} is a next_cursor from this page`, { [name]: v });
  return Number(v);
}

function page(ctx: RouteContext, title: string, ws: string, body: Markup): { html: string } {
  return {
    html: layout(title, navOf(defaultCatalog), body, ctx.csrfToken, {
      path: ctx.url.pathname,
      crumbs: [
        { href: '/memory-workspaces', title: 'reasoning memory' },
        { href: memoryHrefs.workspace(ws), title: ws },
      ],
    }),
  };
}

const asJson = (ctx: RouteContext) =>
  h`<p><a href="${ctx.url.pathname}?${new URLSearchParams({
    ...Object.fromEntries(ctx.url.searchParams),
    format: 'json',
  }).toString()}">as JSON</a></p>`;

const wsParam = { name: 'workspace', in: 'path', required: true, schema: { type: 'string' } } as const;
const cursorDoc = (name: string) =>
  ({ name, in: 'query', schema: { type: 'integer', minimum: 0 }, description: 'a next_cursor' }) as const;

export function memoryBranchRoutes(app: AppServices): Route[] {
  return [
    {
      method: 'GET',
      path: '/memory-workspaces/:workspace/branches/:branch',
      summary:
        "A reasoning-memory branch: its notes (newest first) and its graph's nodes and edges, with the merge conflicts into it",
      params: [
        wsParam,
        { name: 'branch', in: 'path', required: true, schema: { type: 'string' } },
        cursorDoc('notes_cursor'),
        cursorDoc('graph_cursor'),
      ],
      async handle(ctx) {
        const ws = ctx.params.workspace ?? '';
        const branch = ctx.params.branch ?? '';
        const notesCursor = cursorParam(ctx, 'notes_cursor');
        const graphCursor = cursorParam(ctx, 'graph_cursor');
        const notes = await show(app.store, {
          workspace: ws,
          branch,
          doc: 'notes',
          limit: MEMORY_PAGE_LIMIT,
          max_chars: MEMORY_PAGE_CHARS,
          ...(notesCursor !== undefined ? { cursor: notesCursor } : {}),
        });
        const graph = await graphQuery(app.store, {
          workspace: ws,
          branch,
          doc: DEFAULT_GRAPH_DOC,
          limit: MEMORY_PAGE_LIMIT,
          max_chars: MEMORY_PAGE_CHARS,
          ...(graphCursor !== undefined ? { cursor: graphCursor } : {}),
        });
        const conflicts = await graphConflicts(app.store, {
          workspace: ws,
          into: branch,
          limit: MEMORY_PAGE_LIMIT,
          max_chars: MEMORY_PAGE_CHARS,
        });
        const base = await app.store.get<{ base_branch: string | null }>(
          'SELECT base_branch FROM reasoning_branches WHERE workspace = ? AND name = ?',
          [ws, branch],
        );
        if (negotiate(ctx.c) === 'json') return { json: { workspace: ws, branch, notes, graph, conflicts } };
        const baseBranch = base?.base_branch ?? null;
        const body = h`<div class="chain"><span>workspace: <a href="${memoryHrefs.workspace(ws)}">${ws}</a></span>${
          baseBranch
            ? h`<span>based on <a href="${memoryHrefs.branch(ws, baseBranch)}">${baseBranch}</a></span><span><a href="${memoryHrefs.diff(
                ws,
                baseBranch,
                branch,
              )}">diff from ${baseBranch}</a></span>`
            : ''
        }</div>
<h2>Notes</h2>${entriesTable(ws, notes.entries, 'No notes on this branch.')}${
          notes.truncated ? h`<p class="muted">Cut to the page's character budget.</p>` : ''
        }${moreLink(ctx, 'notes_cursor', notes.pagination.next_cursor, 'older notes')}
<h2>Graph</h2><h3>Nodes</h3>${nodesTable(graph.nodes, 'No graph nodes on this branch.')}<h3>Edges among them</h3>${edgesTable(
          graph.edges,
          'No edges.',
        )}${graph.truncated ? h`<p class="muted">Cut to the page's character budget.</p>` : ''}${moreLink(
          ctx,
          'graph_cursor',
          graph.pagination.next_cursor,
          'older nodes',
        )}
<h2>Merge conflicts into ${branch}</h2>${
          conflicts.conflicts.length
            ? h`<div class="scroll"><table><thead><tr><th scope="col">conflict</th><th scope="col">kind</th><th scope="col">key</th><th scope="col">status</th><th scope="col">found</th></tr></thead><tbody>${conflicts.conflicts.map(
                (c) =>
                  h`<tr><td><a href="${memoryHrefs.conflict(ws, c.conflict_id)}">${c.conflict_id}</a></td><td>${c.kind}</td><td>${
                    typeof c.key === 'string' ? c.key : `${c.key.from} ${c.key.rel} ${c.key.to}`
                  }</td><td>${c.status}</td><td>${when(c.created_at_ms)}</td></tr>`,
              )}</tbody></table></div>`
            : h`<p class="muted">No merge conflicts.</p>`
        }${asJson(ctx)}`;
        return page(ctx, `Branch ${branch} · ${ws}`, ws, body);
      },
    },
    {
      method: 'GET',
      path: '/memory-workspaces/:workspace/diff',
      summary:
        'What a reasoning-memory branch has that another has not: notes entries and graph changes (from, to; directional)',
      params: [
        wsParam,
        { name: 'from', in: 'query', required: true, schema: { type: 'string' } },
        { name: 'to', in: 'query', required: true, schema: { type: 'string' } },
        cursorDoc('notes_cursor'),
        cursorDoc('graph_cursor'),
      ],
      async handle(ctx) {
        const ws = ctx.params.workspace ?? '';
        const from = ctx.url.searchParams.get('from');
        const to = ctx.url.searchParams.get('to');
        if (!from || !to)
          throw invalidInput(
            'a diff needs from and to branches',
            { from, to },
            'use ?from=<branch>&to=<branch>',
          );
        const notesCursor = cursorParam(ctx, 'notes_cursor');
        const graphCursor = cursorParam(ctx, 'graph_cursor');
        const notes = await diff(app.store, {
          workspace: ws,
          from,
          to,
          doc: 'notes',
          limit: MEMORY_PAGE_LIMIT,
          max_chars: MEMORY_PAGE_CHARS,
          ...(notesCursor !== undefined ? { cursor: notesCursor } : {}),
        });
        const graph = await graphDiff(app.store, {
          workspace: ws,
          from,
          to,
          limit: MEMORY_PAGE_LIMIT,
          max_chars: MEMORY_PAGE_CHARS,
          ...(graphCursor !== undefined ? { cursor: graphCursor } : {}),
        });
        if (negotiate(ctx.c) === 'json') return { json: { workspace: ws, from, to, notes, graph } };
        const nodes = graph.changes.flatMap((c) => (c.kind === 'node' ? [c.to] : []));
        const edges = graph.changes.flatMap((c) => (c.kind === 'edge' ? [c.to] : []));
        const body = h`<p>What <a href="${memoryHrefs.branch(ws, to)}">${to}</a> has that <a href="${memoryHrefs.branch(
          ws,
          from,
        )}">${from}</a> has not · <a href="${memoryHrefs.diff(ws, to, from)}">the other way</a></p>
<h2>Notes</h2>${entriesTable(ws, notes.entries, 'No notes differ.')}${moreLink(
          ctx,
          'notes_cursor',
          notes.pagination.next_cursor,
          'older entries',
        )}
<h2>Graph</h2><h3>Nodes (as on ${to})</h3>${nodesTable(nodes, 'No node differs.')}<h3>Edges (as on ${to})</h3>${edgesTable(
          edges,
          'No edge differs.',
        )}${moreLink(ctx, 'graph_cursor', graph.pagination.next_cursor, 'older changes')}${asJson(ctx)}`;
        return page(ctx, `Diff ${from} → ${to} · ${ws}`, ws, body);
      },
    },
    {
      method: 'GET',
      path: '/memory-workspaces/:workspace/conflicts/:conflict_id',
      summary:
        'A graph merge conflict: the common base and both sides (theirs: the merged branch; ours: the branch merged into)',
      params: [wsParam, { name: 'conflict_id', in: 'path', required: true, schema: { type: 'string' } }],
      async handle(ctx) {
        const ws = ctx.params.workspace ?? '';
        const shown = await graphConflictShow(app.store, {
          workspace: ws,
          conflict_id: ctx.params.conflict_id ?? '',
          max_chars: MEMORY_PAGE_CHARS,
        });
        if (negotiate(ctx.c) === 'json') return { json: shown };
        const c: GraphConflict = shown.conflict;
        const side = (v: GraphConflict['base']) =>
          h`<td>${v === null ? h`<span class="muted">absent</span>` : jsonBlock(v)}</td>`;
        const key = typeof c.key === 'string' ? c.key : `${c.key.from} ${c.key.rel} ${c.key.to}`;
        const body = h`<div class="chain"><span>${c.kind} ${key}</span><span>${c.status}${
          c.resolution ? ` (${c.resolution})` : ''
        }</span><span>merging <a href="${memoryHrefs.branch(ws, c.from)}">${c.from}</a> into <a href="${memoryHrefs.branch(
          ws,
          c.into,
        )}">${c.into}</a></span><span>graph ${c.doc}</span><span><a href="${memoryHrefs.diff(ws, c.into, c.from)}">diff</a></span></div>
<div class="scroll"><table><thead><tr><th scope="col">base</th><th scope="col">theirs (${c.from})</th><th scope="col">ours (${c.into})</th></tr></thead><tbody><tr>${side(
          c.base,
        )}${side(c.theirs)}${side(c.ours)}</tr></tbody></table></div>${asJson(ctx)}`;
        return page(ctx, `Conflict on ${key} · ${ws}`, ws, body);
      },
    },
  ];
}
