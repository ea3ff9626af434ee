/** A validated graph in the shape the run loop needs: nodes by id, connectors by endpoint, channels. */
import type { ChannelSpec, ConnectorMode, GraphSpec, NodeSpec } from '../engine.ts';

export interface CompiledConnector {
  id: string;
  from: string;
  to: string;
  mode: ConnectorMode;
  route: string | undefined;
}

export interface CompiledGraph {
  hash: string;
  spec: GraphSpec;
  entry: string;
  nodes: Map<string, NodeSpec>;
  /** Outgoing solid connectors per node, in authored order. */
  solidOut: Map<string, CompiledConnector[]>;
  /** Incoming connectors per node, in authored order. */
  incoming: Map<string, CompiledConnector[]>;
  channels: Map<string, ChannelSpec>;
  maxSteps: number;
}

export const DEFAULT_MAX_STEPS = 10_000;

export function compileGraph(spec: GraphSpec, hash: string): CompiledGraph {
  const nodes = new Map(spec.nodes.map((n) => [n.id, n]));
  const solidOut = new Map<string, CompiledConnector[]>();
  const incoming = new Map<string, CompiledConnector[]>();
  spec.connectors.forEach((c, i) => {
    const cc: CompiledConnector = {
      id: c.id ?? `${c.from}->${c.to}#${i}`,
      from: c.from,
      to: c.to,
      mode: c.mode ?? 'solid',
      route: c.route,
    };
    if (cc.mode === 'solid') solidOut.set(c.from, [...(solidOut.get(c.from) ?? []), cc]);
    incoming.set(c.to, [...(incoming.get(c.to) ?? []), cc]);
  });
  return {
    hash,
    spec,
    entry: spec.entry,
    nodes,
    solidOut,
    incoming,
    channels: new Map(Object.entries(spec.channels ?? {})),
    maxSteps: spec.max_steps ?? DEFAULT_MAX_STEPS,
  };
}

/** Solid connectors a finished node fires: unrouted ones always, routed ones when their route was chosen. */
export function firedConnectors(
  graph: CompiledGraph,
  node: string,
  route: string | string[] | undefined,
): CompiledConnector[] {
  const chosen = route === undefined ? [] : Array.isArray(route) ? route : [route];
  return (graph.solidOut.get(node) ?? []).filter((c) => c.route === undefined || chosen.includes(c.route));
}

/** Routes a node chose that no outgoing connector carries (a node bug, reported as ROUTE_UNKNOWN). */
export function unknownRoutes(
  graph: CompiledGraph,
  node: string,
  route: string | string[] | undefined,
): string[] {
  if (route === undefined) return [];
  const known = new Set((graph.solidOut.get(node) ?? []).map((c) => c.route));
  return (Array.isArray(route) ? route : [route]).filter((r) => !known.has(r));
}
