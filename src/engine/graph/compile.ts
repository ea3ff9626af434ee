/** A validated graph in the shape the run loop needs: nodes by id, connectors by endpoint, channels. */
import { type ChannelSpec, type ConnectorMode, type GraphSpec, type NodeSpec, TERMINAL } from '../engine.ts';

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
  /** Ids of the `terminal` nodes. */
  terminals: Set<string>;
  /** Whether some channel uses the `append` reducer (such runs are replayed, never snapshotted). */
  hasAppendChannel: boolean;
  /** Per node: the routes its outgoing solid connectors carry (`undefined` for unrouted ones). */
  knownRoutes: Map<string, Set<string | undefined>>;
  /** Per node and single route (or none): the connectors it fires, computed once (see firedConnectors). */
  fired: Map<string, Map<string | undefined, CompiledConnector[]>>;
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
  const channels = new Map(Object.entries(spec.channels ?? {}));
  const knownRoutes = new Map<string, Set<string | undefined>>();
  for (const [node, out] of solidOut) knownRoutes.set(node, new Set(out.map((c) => c.route)));
  return {
    hash,
    spec,
    entry: spec.entry,
    nodes,
    solidOut,
    incoming,
    channels,
    maxSteps: spec.max_steps ?? DEFAULT_MAX_STEPS,
    terminals: new Set(spec.nodes.filter((n) => n.type === TERMINAL).map((n) => n.id)),
    hasAppendChannel: [...channels.values()].some((c) => c.reducer === 'append'),
    knownRoutes,
    fired: new Map(),
  };
}

/** Whether `frontier` includes a terminal node (the run completes). */
export function reachesTerminal(graph: CompiledGraph, frontier: ReadonlyArray<{ node: string }>): boolean {
  for (let i = 0; i < frontier.length; i++) if (graph.terminals.has(frontier[i]!.node)) return true;
  return false;
}

/** Solid connectors a finished node fires: unrouted ones always, routed ones when their route was chosen. */
export function firedConnectors(
  graph: CompiledGraph,
  node: string,
  route: string | string[] | undefined,
): CompiledConnector[] {
  if (Array.isArray(route)) return firedBy(graph, node, route);
  // A step is one node choosing at most one route, again and again: the answer is computed once.
  let byRoute = graph.fired.get(node);
  if (!byRoute) {
    byRoute = new Map();
    graph.fired.set(node, byRoute);
  }
  let out = byRoute.get(route);
  if (!out) {
    // Only routes a connector carries are remembered, so a node's bad routes cannot grow the map.
    out = firedBy(graph, node, route === undefined ? [] : [route]);
    if (route === undefined || graph.knownRoutes.get(node)?.has(route)) byRoute.set(route, out);
  }
  return out;
}

function firedBy(graph: CompiledGraph, node: string, chosen: readonly string[]): CompiledConnector[] {
  return (graph.solidOut.get(node) ?? []).filter((c) => c.route === undefined || chosen.includes(c.route));
}

const NO_ROUTES: string[] = [];

/** Routes a node chose that no outgoing connector carries (a node bug, reported as ROUTE_UNKNOWN). */
export function unknownRoutes(
  graph: CompiledGraph,
  node: string,
  route: string | string[] | undefined,
): string[] {
  if (route === undefined) return NO_ROUTES;
  const known = graph.knownRoutes.get(node);
  if (!Array.isArray(route)) return known?.has(route) ? NO_ROUTES : [route];
  return unknownOf(known, route);
}

// Apart from its caller: a closure over `known` there would cost every call a context allocation.
function unknownOf(known: Set<string | undefined> | undefined, routes: string[]): string[] {
  return routes.filter((r) => !known?.has(r));
}
