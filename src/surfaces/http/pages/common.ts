/** Small pieces shared by the browser's pages: key/value panels, links by id, times, waterfall rows. */
import type { WaterfallRow } from '../../pictures/index.ts';
import { h, type Markup } from '../html/render.ts';

export const enc = encodeURIComponent;

export const hrefs = {
  world: (slug: string) => `/worlds/${enc(slug)}`,
  worldTurn: (slug: string, turn: number) => `/worlds/${enc(slug)}/turns/${turn}`,
  attempt: (id: string) => `/attempts/${enc(id)}`,
  invocation: (id: string) => `/source-invocations/${enc(id)}`,
  llmCall: (id: string) => `/llm-calls/${enc(id)}`,
  run: (id: string) => `/runs/${enc(id)}`,
  graph: (hash: string) => `/graphs/hash/${enc(hash)}`,
  workflow: (hash: string) => `/cognition-workflows/hash/${enc(hash)}`,
  source: (hash: string) => `/response-sources/hash/${enc(hash)}`,
  schema: (hash: string) => `/json-schemas/hash/${enc(hash)}`,
  session: (id: string) => `/sessions/${enc(id)}`,
};

/**
 * Without JavaScript a page showing running work re-reads itself every 2 s (the live script does it
 * better when it runs); `<meta>` refresh is allowed under the pages' CSP.
 */
export const noscriptRefresh = (): Markup => h`<noscript><meta http-equiv="refresh" content="2"></noscript>`;

/**
 * An idle page's watch (the live script's): every few seconds, while the tab is visible, it reads the
 * bounded JSON list at `href` and re-reads the page when the `key`:`status` of its items differs from
 * what the page was drawn from — so work started anywhere shows up, at one small read per poll.
 */
export function liveWatch(href: string, key: string, items: ReadonlyArray<Record<string, unknown>>): Markup {
  const token = items.map((i) => `${String(i[key] ?? '')}:${String(i.status ?? '')}`).join(' ');
  return h`<span hidden data-live-watch="${href}" data-live-key="${key}" data-live-token="${token}"></span>`;
}

/** The key to a waterfall's bar colours (by invocation kind, then status). */
export const waterfallLegend = (): Markup =>
  h`<p class="legend waterfall-legend"><span class="key key-wf-llm">LLM generation</span> <span class="key key-wf-ambient">ambient context</span> <span class="key key-wf-tool">tool call</span> <span class="key key-wf-flow">flowchart node</span> <span class="key key-wf-other">other</span> <span class="key key-wf-failed">failed</span> <span class="key key-wf-interrupted">interrupted</span> <span class="key key-wf-running">running (paler)</span></p>`;

/** The key to a run graph's node colours. */
export const graphLegend = (): Markup =>
  h`<p class="legend"><span class="key key-ran">ran</span> <span class="key key-failed">failed</span> <span class="key key-current">current</span> <span class="key">not run</span></p>`;

/** A definition list; values are text or markup, empty ones are left out. */
export function kv(entries: ReadonlyArray<[string, Markup | string | number | null | undefined]>): Markup {
  const shown = entries.filter(([, v]) => v !== null && v !== undefined && v !== '');
  return h`<dl class="kv">${shown.map(([k, v]) => h`<dt>${k}</dt><dd>${typeof v === 'number' ? String(v) : v}</dd>`)}</dl>`;
}

/** A link whose text is the value (ids and hashes shortened for the eye, whole in the title). */
export function idLink(href: string, id: string, short = true): Markup {
  const text = short && id.length > 20 ? `${id.slice(0, 12)}…` : id;
  return h`<a href="${href}" title="${id}">${text}</a>`;
}

/** Epoch ms or an ISO string as milliseconds (null when absent). */
export function toMs(value: unknown): number | null {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && value !== '') {
    const n = Date.parse(value);
    return Number.isNaN(n) ? null : n;
  }
  return null;
}

export function when(value: unknown): string {
  const ms = toMs(value);
  return ms === null ? '—' : new Date(ms).toISOString().replace('T', ' ').slice(0, 23);
}

/** The label a person would give an invocation row. */
export function invocationLabel(r: Record<string, unknown>): string {
  const subject = r.workflow_subject_entity_id ? `${r.workflow_subject_entity_id} · ` : '';
  switch (r.invocation_kind) {
    case 'ambient_context':
      return `${subject}ambient ${r.ambient_source_id ?? ''}`;
    case 'llm_generation': {
      const round = r.tool_loop_round ? ` round ${r.tool_loop_round}` : '';
      const retry =
        Number(r.logical_generation_attempt ?? 1) > 1 ? ` retry ${r.logical_generation_attempt}` : '';
      return `${subject}generation${round}${retry}`;
    }
    case 'model_elected_tool':
      return `${subject}tool ${r.tool_name ?? ''}`;
    default: {
      const what =
        r.tool_name ?? (r.interface_name === 'llm_chat_completions' ? 'LLM call' : r.interface_name);
      const node = r.workflow_node_id ? `${r.workflow_node_id} · ` : '';
      return `${subject}${node}${String(what ?? r.invocation_kind ?? 'call')}`;
    }
  }
}

/**
 * A retried generation (logical attempt > 1) has no recorded parent; it is drawn under the first
 * attempt of the same subject, node and tool-loop round, so retries read as children of that call.
 */
function retryParents(rows: ReadonlyArray<Record<string, unknown>>): Map<string, string> {
  const key = (r: Record<string, unknown>) =>
    `${r.attempt_id ?? r.run_id}|${r.workflow_subject_entity_id}|${r.workflow_node_id}|${r.tool_loop_round}`;
  const firsts = new Map<string, string>();
  for (const r of rows)
    if (r.invocation_kind === 'llm_generation' && Number(r.logical_generation_attempt ?? 1) === 1)
      firsts.set(key(r), String(r.source_invocation_id));
  const out = new Map<string, string>();
  for (const r of rows) {
    if (r.invocation_kind !== 'llm_generation' || Number(r.logical_generation_attempt ?? 1) <= 1) continue;
    const first = firsts.get(key(r));
    if (first && !r.parent_source_invocation_id) out.set(String(r.source_invocation_id), first);
  }
  return out;
}

/** Invocation summaries (attempt rows or catalog rows) as waterfall rows. */
export function waterfallRows(rows: ReadonlyArray<Record<string, unknown>>): WaterfallRow[] {
  const retries = retryParents(rows);
  return rows.flatMap((r) => {
    const start = toMs(r.started_at);
    if (start === null) return [];
    const ended = toMs(r.ended_at);
    const duration = typeof r.duration_ms === 'number' ? r.duration_ms : null;
    const end = ended ?? (duration !== null ? start + duration : null);
    const id = String(r.source_invocation_id);
    return [
      {
        id,
        parent_id: (r.parent_source_invocation_id as string | null) ?? retries.get(id) ?? null,
        label: invocationLabel(r),
        kind: String(r.invocation_kind ?? 'call'),
        status: String(r.status ?? 'unknown'),
        started_at_ms: start,
        ended_at_ms: r.status === 'running' ? null : (end ?? start),
        href: hrefs.invocation(id),
      },
    ];
  });
}
