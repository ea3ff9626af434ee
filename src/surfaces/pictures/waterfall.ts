/**
 * The waterfall: every source invocation and LLM call of an attempt, run or session on one time axis,
 * children (tool calls, retries) nested under their parent generation. Bars are links to the record.
 */
import { clip, el, fmt, link, type Svg, svgRoot, text } from './svg.ts';

export interface WaterfallRow {
  id: string;
  parent_id?: string | null;
  label: string;
  /** `ambient_context`, `llm_generation`, `model_elected_tool`, … (a CSS class). */
  kind: string;
  /** `succeeded`, `failed`, `running`, `interrupted` (a CSS class). */
  status: string;
  started_at_ms: number;
  /** `null` while running: the bar runs to `now`. */
  ended_at_ms: number | null;
  href?: string;
}

const ROW_H = 22;
const LABEL_W = 260;
const CHART_W = 640;
const AXIS_H = 24;
const INDENT = 14;

/** Orders rows depth-first (children after their parent, by start time) with their depth. */
export function nestRows(rows: readonly WaterfallRow[]): Array<{ row: WaterfallRow; depth: number }> {
  const ids = new Set(rows.map((r) => r.id));
  const children = new Map<string, WaterfallRow[]>();
  const roots: WaterfallRow[] = [];
  for (const r of rows) {
    if (r.parent_id && ids.has(r.parent_id) && r.parent_id !== r.id) {
      const list = children.get(r.parent_id) ?? [];
      list.push(r);
      children.set(r.parent_id, list);
    } else roots.push(r);
  }
  const byStart = (a: WaterfallRow, b: WaterfallRow) =>
    a.started_at_ms - b.started_at_ms || (a.id < b.id ? -1 : 1);
  const out: Array<{ row: WaterfallRow; depth: number }> = [];
  const seen = new Set<string>();
  const visit = (r: WaterfallRow, depth: number) => {
    if (seen.has(r.id)) return;
    seen.add(r.id);
    out.push({ row: r, depth });
    for (const c of (children.get(r.id) ?? []).sort(byStart)) visit(c, depth + 1);
  };
  for (const r of roots.sort(byStart)) visit(r, 0);
  // Rows caught in a parent cycle are still shown, at top level.
  for (const r of rows) if (!seen.has(r.id)) visit(r, 0);
  return out;
}

export function waterfallPicture(
  rows: readonly WaterfallRow[],
  title: string,
  now: number = Date.now(),
): Svg {
  const nested = nestRows(rows);
  const start = Math.min(...rows.map((r) => r.started_at_ms), now);
  const end = Math.max(...rows.map((r) => r.ended_at_ms ?? now), start + 1);
  const span = end - start;
  const x = (t: number) => LABEL_W + ((t - start) / span) * CHART_W;
  const height = AXIS_H + Math.max(1, nested.length) * ROW_H + 8;
  const width = LABEL_W + CHART_W + 16;

  const ticks: string[] = [];
  for (let i = 0; i <= 4; i++) {
    const t = start + (span * i) / 4;
    ticks.push(
      el('line', { x1: fmt(x(t)), x2: fmt(x(t)), y1: AXIS_H - 6, y2: height, class: 'tick' }),
      el(
        'text',
        {
          x: fmt(x(t)),
          y: AXIS_H - 10,
          'text-anchor': i === 0 ? 'start' : i === 4 ? 'end' : 'middle',
          class: 'tick-label',
        },
        text(formatMs(t - start)),
      ),
    );
  }
  const bars = nested.map(({ row, depth }, i) => {
    const y = AXIS_H + i * ROW_H;
    const x0 = x(row.started_at_ms);
    const x1 = Math.max(x0 + 2, x(row.ended_at_ms ?? now));
    const duration = (row.ended_at_ms ?? now) - row.started_at_ms;
    const tip = `${row.label} — ${row.kind}, ${row.status}, ${formatMs(duration)}`;
    return el(
      'g',
      {
        class: `bar kind-${row.kind} status-${row.status}${row.ended_at_ms === null ? ' running' : ''}`,
        'data-id': row.id,
      },
      link(
        row.href,
        el(
          'g',
          {},
          el('title', {}, text(tip)),
          el(
            'text',
            { x: 6 + depth * INDENT, y: y + 15, class: 'bar-label' },
            text(clip(row.label, 34 - depth * 2)),
          ),
          el('rect', { x: fmt(x0), y: y + 4, width: fmt(x1 - x0), height: ROW_H - 8, rx: 3 }),
        ),
      ),
    );
  });
  return svgRoot(width, height, 'picture waterfall', [...ticks, ...bars], title);
}

export function formatMs(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}
