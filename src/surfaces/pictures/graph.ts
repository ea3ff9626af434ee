/**
 * Graph pictures (cognition workflows, engine graphs, agent graphs, flowcharts): nodes laid out by
 * dagre, connectors styled by mode (solid / dotted / dashed), the current node highlighted. Nodes carry
 * `data-node-id` so a live page can move the highlight as events arrive.
 */
import dagre from '@dagrejs/dagre';
import { clip, el, fmt, link, type Svg, svgRoot, text } from './svg.ts';

export type ConnectorStyle = 'solid' | 'dotted' | 'dashed';

export interface PictureNode {
  id: string;
  label?: string;
  /** The node type, shown small under the label and used as a CSS class. */
  kind?: string;
  /** `ok`, `failed`, `running`, `waiting`… (a CSS class). */
  status?: string;
  href?: string;
}

export interface PictureEdge {
  from: string;
  to: string;
  mode?: ConnectorStyle;
  label?: string;
  /** Drawn emphasized (e.g. a transition a contract took). */
  taken?: boolean;
}

export interface GraphPictureInput {
  nodes: PictureNode[];
  edges: PictureEdge[];
  /** Node ids drawn as current (e.g. the running node of a live run). */
  highlight?: string[];
  direction?: 'LR' | 'TB';
  title: string;
  /** A longer text description (the SVG's `<desc>`), for assistive technology. */
  description?: string;
}

const NODE_W = 150;
const NODE_H = 46;
const DASH: Record<ConnectorStyle, string | undefined> = { solid: undefined, dotted: '2 4', dashed: '8 5' };

/**
 * A node's edge to itself as a curve off its side: dagre lays a self-edge's points beside the node
 * (a polyline through them runs along its border), so the loop leaves the node's right edge above
 * its middle and comes back below it, reaching as far out as those points.
 */
function selfLoop(node: { x: number; y: number }, points: ReadonlyArray<{ x: number; y: number }>) {
  const side = node.x + NODE_W / 2;
  const reach = Math.max(34, ...points.map((p) => p.x - side + 14));
  const top = node.y - NODE_H / 4;
  const bottom = node.y + NODE_H / 4;
  return {
    d: `M${fmt(side)},${fmt(top)} C${fmt(side + reach)},${fmt(top - 26)} ${fmt(side + reach)},${fmt(bottom + 26)} ${fmt(side + 1)},${fmt(bottom)}`,
    mid: { x: side + reach * 0.8, y: node.y - 2 },
  };
}

export function graphPicture(input: GraphPictureInput): Svg {
  const g = new dagre.graphlib.Graph({ multigraph: true });
  g.setGraph({ rankdir: input.direction ?? 'LR', nodesep: 24, ranksep: 56, marginx: 12, marginy: 12 });
  g.setDefaultEdgeLabel(() => ({}));
  const known = new Set<string>();
  for (const n of input.nodes) {
    if (known.has(n.id)) continue;
    known.add(n.id);
    g.setNode(n.id, { width: NODE_W, height: NODE_H });
  }
  const edges = input.edges.filter((e) => known.has(e.from) && known.has(e.to));
  edges.forEach((e, i) => {
    g.setEdge(e.from, e.to, { label: e.label, width: e.label ? 60 : 0, height: e.label ? 14 : 0 }, `e${i}`);
  });
  dagre.layout(g);
  const graph = g.graph();
  // Room for self-loops drawn off the rightmost nodes.
  const loopRoom = edges.some((e) => e.from === e.to) ? 48 : 0;
  const width = Math.max(NODE_W + 24, (graph.width ?? 0) + loopRoom);
  const height = Math.max(NODE_H + 24, graph.height ?? 0);
  const highlight = new Set(input.highlight ?? []);

  const defs = el(
    'defs',
    {},
    el(
      'marker',
      {
        id: 'arrow',
        viewBox: '0 0 10 10',
        refX: 9,
        refY: 5,
        markerWidth: 7,
        markerHeight: 7,
        orient: 'auto',
      },
      el('path', { d: 'M0,0 L10,5 L0,10 z', class: 'arrowhead' }),
    ),
  );
  const edgeMarkup = edges.map((e, i) => {
    const points = (g.edge(e.from, e.to, `e${i}`)?.points ?? []) as Array<{ x: number; y: number }>;
    const loop = e.from === e.to ? selfLoop(g.node(e.from) as { x: number; y: number }, points) : null;
    const d = loop?.d ?? points.map((p, j) => `${j === 0 ? 'M' : 'L'}${fmt(p.x)},${fmt(p.y)}`).join(' ');
    const mode = e.mode ?? 'solid';
    const mid = loop?.mid ?? points[Math.floor(points.length / 2)];
    return el(
      'g',
      {
        class: `edge edge-${mode}${loop ? ' self-loop' : ''}${e.taken ? ' taken' : ''}`,
        'data-from': e.from,
        'data-to': e.to,
      },
      el('path', { d, fill: 'none', 'stroke-dasharray': DASH[mode], 'marker-end': 'url(#arrow)' }),
      e.label && mid
        ? el(
            'text',
            { x: fmt(mid.x), y: fmt(mid.y - 4), 'text-anchor': 'middle', class: 'edge-label' },
            text(clip(e.label, 18)),
          )
        : '',
    );
  });
  const nodeMarkup = input.nodes
    .filter((n, i) => input.nodes.findIndex((m) => m.id === n.id) === i)
    .map((n) => {
      const p = g.node(n.id) as { x: number; y: number };
      const x = p.x - NODE_W / 2;
      const y = p.y - NODE_H / 2;
      const label = n.label ?? n.id;
      const cls = [
        'node',
        n.kind ? `node-${n.kind}` : '',
        n.status ? `status-${n.status}` : '',
        highlight.has(n.id) ? 'current' : '',
      ]
        .filter(Boolean)
        .join(' ');
      return el(
        'g',
        { class: cls, 'data-node-id': n.id },
        link(
          n.href,
          el(
            'g',
            {},
            el('title', {}, text(n.kind ? `${label} (${n.kind})` : label)),
            el('rect', { x: fmt(x), y: fmt(y), width: NODE_W, height: NODE_H, rx: 8 }),
            el(
              'text',
              { x: fmt(p.x), y: fmt(p.y - 3), 'text-anchor': 'middle', class: 'node-label' },
              text(clip(label, 20)),
            ),
            n.kind
              ? el(
                  'text',
                  { x: fmt(p.x), y: fmt(p.y + 13), 'text-anchor': 'middle', class: 'node-kind' },
                  text(clip(n.kind, 22)),
                )
              : '',
          ),
        ),
      );
    });
  return svgRoot(
    width,
    height,
    'picture graph',
    [defs, ...edgeMarkup, ...nodeMarkup],
    input.title,
    input.description,
  );
}
