/**
 * Compiles a saved flowchart graph to an engine GraphSpec: one engine node per flowchart node
 * (type `flow.<node_type>`), connectors with their modes, decision connectors routed by connector
 * id, and a hidden terminal after every end node. The run input is the `input` channel.
 */
import type { GraphSpec, Json } from '../../../engine/index.ts';
import type { GraphSnapshot } from '../types.ts';
import type { CompiledNode } from './context.ts';

export const TERMINAL_ID = '__flow_terminal';
export const engineType = (nodeType: string) => `flow.${nodeType}`;

export function compileFlowchart(flowchart_id: string, g: GraphSnapshot): GraphSpec {
  const start = g.nodes.find((n) => n.node_type === 'start');
  const byId = new Map(g.nodes.map((n) => [n.id, n]));
  const nodes: GraphSpec['nodes'] = g.nodes.map((n) => {
    const config: CompiledNode = {
      flowchart_id,
      flowchart_node_id: n.id,
      node_type: n.node_type,
      title: n.title,
      config: n.config,
      outgoing: g.edges
        .filter((e) => e.source_node_id === n.id && e.edge_mode === 'solid')
        .map((e) => ({ connector_id: e.id, target_node_id: e.target_node_id, route_key: e.route_key })),
    };
    return { id: n.id, type: engineType(n.node_type), config: config as unknown as Json };
  });
  nodes.push({ id: TERMINAL_ID, type: 'terminal' });
  const connectors: GraphSpec['connectors'] = g.edges.map((e) => ({
    id: e.id,
    from: e.source_node_id,
    to: e.target_node_id,
    mode: e.edge_mode,
    ...(byId.get(e.source_node_id)?.node_type === 'decision' && e.edge_mode === 'solid'
      ? { route: e.id }
      : {}),
  }));
  for (const n of g.nodes)
    if (n.node_type === 'end')
      connectors.push({ id: `${n.id}->${TERMINAL_ID}`, from: n.id, to: TERMINAL_ID });
  return { entry: start?.id ?? '', nodes, connectors, channels: { input: { reducer: 'value' } } };
}
