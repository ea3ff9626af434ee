/**
 * The turn timeline of a world: turns across, subjects down, one mark per patch (failed attempts red).
 * Marks are links to the patch or attempt they stand for.
 */
import { clip, el, fmt, link, type Svg, svgRoot, text } from './svg.ts';

export interface TimelineMark {
  turn: number;
  subject: string;
  /** `committed` or `failed` (a CSS class; failures are drawn red). */
  status: string;
  label: string;
  href?: string;
}

export interface TimelineInput {
  turns: number[];
  subjects: string[];
  marks: TimelineMark[];
  title: string;
}

const LABEL_W = 150;
const COL_W = 44;
const ROW_H = 28;
const HEAD_H = 24;
const R = 6;

export function turnTimelinePicture(input: TimelineInput): Svg {
  const turns = [...new Set(input.turns)].sort((a, b) => a - b);
  const subjects = [...new Set(input.subjects)];
  const col = new Map(turns.map((t, i) => [t, i]));
  const row = new Map(subjects.map((s, i) => [s, i]));
  const width = LABEL_W + Math.max(1, turns.length) * COL_W + 8;
  const height = HEAD_H + Math.max(1, subjects.length) * ROW_H + 4;
  const body: string[] = [];
  turns.forEach((t, i) => {
    body.push(
      el(
        'text',
        { x: LABEL_W + i * COL_W + COL_W / 2, y: 16, 'text-anchor': 'middle', class: 'turn-label' },
        text(String(t)),
      ),
    );
  });
  subjects.forEach((s, i) => {
    const y = HEAD_H + i * ROW_H;
    body.push(
      el('line', { x1: LABEL_W, x2: width - 4, y1: y + ROW_H / 2, y2: y + ROW_H / 2, class: 'lane' }),
      el(
        'text',
        { x: 4, y: y + ROW_H / 2 + 4, class: 'subject-label' },
        el('title', {}, text(s)),
        text(clip(s, 22)),
      ),
    );
  });
  const inCell = new Map<string, number>();
  const placed: Array<{ m: TimelineMark; c: number; r: number }> = [];
  for (const m of input.marks) {
    const c = col.get(m.turn);
    const r = row.get(m.subject);
    if (c === undefined || r === undefined) continue;
    placed.push({ m, c, r });
    inCell.set(`${c}:${r}`, (inCell.get(`${c}:${r}`) ?? 0) + 1);
  }
  const seen = new Map<string, number>();
  for (const { m, c, r } of placed) {
    const key = `${c}:${r}`;
    const k = seen.get(key) ?? 0;
    seen.set(key, k + 1);
    // Up to three marks side by side, centred in the cell; more wrap a little lower.
    const across = Math.min(3, inCell.get(key) ?? 1);
    const cx = LABEL_W + c * COL_W + COL_W / 2 + ((k % 3) - (across - 1) / 2) * (R * 2 + 1);
    const cy = HEAD_H + r * ROW_H + ROW_H / 2 + Math.floor(k / 3) * 4;
    body.push(
      el(
        'g',
        { class: `mark status-${m.status}`, 'data-turn': m.turn, 'data-subject': m.subject },
        link(
          m.href,
          el(
            'circle',
            { cx: fmt(cx), cy: fmt(cy), r: R },
            el('title', {}, text(`turn ${m.turn} · ${m.subject}: ${m.label}`)),
          ),
        ),
      ),
    );
  }
  return svgRoot(width, height, 'picture timeline', body, input.title);
}
