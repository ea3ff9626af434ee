/**
 * The branch tree of a reasoning-memory workspace: each branch a line on the seq axis from its base
 * cutoff to its head, joined to its base branch at the cutoff.
 */
import { clip, el, fmt, link, type Svg, svgRoot, text } from './svg.ts';

export interface BranchInfo {
  name: string;
  base_branch: string | null;
  /** The base cutoff: the branch sees its base's entries up to this seq. */
  base_seq: number | null;
  /** The newest seq written on this branch (or its base cutoff when it has none of its own). */
  head_seq: number;
  href?: string;
}

const LABEL_W = 170;
const CHART_W = 520;
const ROW_H = 30;

/** Depth-first order from the roots (branches whose base is missing are roots). */
export function orderBranches(branches: readonly BranchInfo[]): Array<{ b: BranchInfo; depth: number }> {
  const names = new Set(branches.map((b) => b.name));
  const kids = new Map<string | null, BranchInfo[]>();
  for (const b of branches) {
    const parent =
      b.base_branch && names.has(b.base_branch) && b.base_branch !== b.name ? b.base_branch : null;
    kids.set(parent, [...(kids.get(parent) ?? []), b]);
  }
  const out: Array<{ b: BranchInfo; depth: number }> = [];
  const seen = new Set<string>();
  const visit = (b: BranchInfo, depth: number) => {
    if (seen.has(b.name)) return;
    seen.add(b.name);
    out.push({ b, depth });
    for (const k of (kids.get(b.name) ?? []).sort((x, y) => (x.base_seq ?? 0) - (y.base_seq ?? 0)))
      visit(k, depth + 1);
  };
  for (const r of kids.get(null) ?? []) visit(r, 0);
  for (const b of branches) if (!seen.has(b.name)) visit(b, 0);
  return out;
}

export function branchTreePicture(branches: readonly BranchInfo[], title: string): Svg {
  const ordered = orderBranches(branches);
  const maxSeq = Math.max(1, ...branches.map((b) => Math.max(b.head_seq, b.base_seq ?? 0)));
  const x = (seq: number) => LABEL_W + (seq / maxSeq) * CHART_W;
  const rowOf = new Map(ordered.map(({ b }, i) => [b.name, i]));
  const y = (i: number) => 12 + i * ROW_H + ROW_H / 2;
  const body: string[] = [];
  ordered.forEach(({ b, depth }, i) => {
    const from = b.base_seq ?? 0;
    const parentRow = b.base_branch ? rowOf.get(b.base_branch) : undefined;
    if (parentRow !== undefined && b.base_seq !== null) {
      body.push(
        el('path', {
          d: `M${fmt(x(from))},${fmt(y(parentRow))} L${fmt(x(from))},${fmt(y(i))}`,
          class: 'fork',
        }),
      );
    }
    body.push(
      el(
        'g',
        { class: 'branch', 'data-branch': b.name },
        link(
          b.href,
          el(
            'g',
            {},
            el(
              'title',
              {},
              text(
                b.base_branch
                  ? `${b.name}: from ${b.base_branch} @ seq ${b.base_seq}, head ${b.head_seq}`
                  : `${b.name}: head ${b.head_seq}`,
              ),
            ),
            el(
              'text',
              { x: 4 + depth * 10, y: fmt(y(i) + 4), class: 'branch-label' },
              text(clip(b.name, 24 - depth)),
            ),
            el('line', {
              x1: fmt(x(from)),
              x2: fmt(Math.max(x(from) + 2, x(b.head_seq))),
              y1: fmt(y(i)),
              y2: fmt(y(i)),
              class: 'branch-line',
            }),
            el('circle', { cx: fmt(x(from)), cy: fmt(y(i)), r: 4, class: 'base' }),
            el('circle', { cx: fmt(x(b.head_seq)), cy: fmt(y(i)), r: 4, class: 'head' }),
          ),
        ),
      ),
    );
  });
  return svgRoot(
    LABEL_W + CHART_W + 16,
    24 + Math.max(1, ordered.length) * ROW_H,
    'picture branches',
    body,
    title,
  );
}
