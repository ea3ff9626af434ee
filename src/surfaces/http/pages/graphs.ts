/**
 * Graph pictures on the pages where people would rather look than read: engine graphs (connectors
 * by mode, node status, the current node highlighted) and cognition workflows (ambient sources feeding
 * the workflow's nodes, the tools a node may elect, the patch they apply).
 */
import type { GraphSpec } from '../../../engine/index.ts';
import {
  type ConnectorStyle,
  graphPicture,
  type PictureEdge,
  type PictureNode,
  type Svg,
} from '../../pictures/index.ts';
import type { KindContext } from '../catalog/kind.ts';
import { h, picture } from '../html/render.ts';
import { registerView } from '../html/views.ts';
import { hrefs } from './common.ts';

export function specPicture(
  spec: GraphSpec,
  title: string,
  options: { highlight?: string[]; status?: Record<string, string> } = {},
): Svg {
  const nodes: PictureNode[] = spec.nodes.map((n) => ({
    id: n.id,
    kind: n.type,
    ...(options.status?.[n.id] ? { status: options.status[n.id]! } : {}),
  }));
  const edges: PictureEdge[] = spec.connectors.map((c) => ({
    from: c.from,
    to: c.to,
    mode: (c.mode ?? 'solid') as ConnectorStyle,
    ...(c.route ? { label: c.route } : {}),
  }));
  return graphPicture({
    nodes,
    edges,
    title,
    ...(options.highlight ? { highlight: options.highlight } : {}),
  });
}

type Ref = { hash?: string; builtin?: string } | undefined;
type WorkflowContent = {
  ambient_sources?: Array<{ id: string; source_ref?: Ref; run?: string }>;
  nodes?: Array<{
    id: string;
    type?: string;
    llm_source_ref?: Ref;
    available_tools?: Array<{ name: string; source_ref?: Ref }>;
  }>;
  apply?: { from?: string };
};

export function workflowPicture(content: WorkflowContent, title: string): Svg {
  const nodes: PictureNode[] = [];
  const edges: PictureEdge[] = [];
  const srcHref = (ref: Ref) => (ref?.hash ? hrefs.source(ref.hash) : undefined);
  for (const a of content.ambient_sources ?? []) {
    const href = srcHref(a.source_ref);
    nodes.push({
      id: `ambient:${a.id}`,
      label: a.id,
      kind: `ambient · ${a.run ?? ''}`,
      ...(href ? { href } : {}),
    });
  }
  for (const n of content.nodes ?? []) {
    const href = srcHref(n.llm_source_ref);
    nodes.push({ id: `node:${n.id}`, label: n.id, kind: n.type ?? 'node', ...(href ? { href } : {}) });
    for (const a of content.ambient_sources ?? [])
      edges.push({ from: `ambient:${a.id}`, to: `node:${n.id}`, mode: 'dotted' });
    for (const t of n.available_tools ?? []) {
      const th = srcHref(t.source_ref);
      nodes.push({ id: `tool:${n.id}:${t.name}`, label: t.name, kind: 'tool', ...(th ? { href: th } : {}) });
      edges.push({ from: `node:${n.id}`, to: `tool:${n.id}:${t.name}`, mode: 'dashed', label: 'may call' });
    }
  }
  const from = content.apply?.from?.split('.')[0];
  if (from) {
    nodes.push({ id: 'apply', label: 'apply WorldPatch', kind: 'apply' });
    edges.push({ from: `node:${from}`, to: 'apply', mode: 'solid' });
  }
  return graphPicture({ nodes, edges, title, direction: 'LR' });
}

registerView('graphs', async (_ctx: KindContext, record) => {
  const spec = record.graph as GraphSpec;
  return {
    title: `Graph ${String(record.graph_hash).slice(0, 12)}…`,
    body: h`${picture(specPicture(spec, 'Graph'))}<p class="muted">Solid connectors trigger, dotted ones pass context, dashed ones pass attachments. <a href="/runs?graph_hash=${String(
      record.graph_hash,
    )}">runs of this graph</a></p>`,
  };
});

registerView('cognition-workflows', async (_ctx: KindContext, record) => ({
  title: `Cognition workflow ${String(record.label ?? String(record.hash).slice(0, 12))}`,
  body: h`${picture(workflowPicture(record.content as WorkflowContent, 'Cognition workflow'))}<p class="muted">Dotted: ambient context the node sees; dashed: tools the model may elect; solid: the node whose output is applied.</p>`,
}));
