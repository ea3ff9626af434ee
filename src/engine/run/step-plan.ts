/**
 * What a step of one node needs of its graph, looked up once per (graph, node, route) instead of on
 * every step: the node's spec and journal index and, per route it chooses, the route's journal index,
 * the frontier it leads to and whether that frontier is terminal. The run loop's usual step (one
 * node, at most one route) checks its result, writes its row and updates the state from these.
 */
import type { NodeSpec, NodeType } from '../engine.ts';
import { type CompiledGraph, reachesTerminal } from '../graph/compile.ts';
import type { NodeRegistry } from '../graph/registry.ts';
import { type Tables, tables } from '../journal/codec.ts';
import { type FrontierEntry, nextFrontier } from './state.ts';

export interface RoutePlan {
  /** The route's index in the journal (null: no route chosen). */
  ix: number | null;
  frontier: FrontierEntry[];
  terminal: boolean;
}

export interface NodePlan {
  id: string;
  spec: NodeSpec;
  /** The node's index in the journal. */
  ix: number;
  /** No route chosen (its unrouted connectors fire). */
  none: RoutePlan;
  /** Routes some connector carries, planned on first choice. */
  routes: Map<string, RoutePlan>;
  /** The node's type as `registry` last found it (a registered type is never replaced). */
  registry: NodeRegistry | null;
  type: NodeType<never> | undefined;
}

export interface GraphPlan {
  graph: CompiledGraph;
  tables: Tables;
  /** The channels by journal index, and whether each appends (see applyOneNode). */
  channels: { names: readonly string[]; appends: boolean[] };
  nodes: Map<string, NodePlan>;
}

const plans = new WeakMap<CompiledGraph, GraphPlan>();

export function graphPlan(graph: CompiledGraph): GraphPlan {
  let p = plans.get(graph);
  if (p === undefined) {
    const t = tables(graph);
    p = {
      graph,
      tables: t,
      channels: {
        names: t.channels,
        appends: t.channels.map((c) => graph.channels.get(c)?.reducer === 'append'),
      },
      nodes: new Map(),
    };
    plans.set(graph, p);
  }
  return p;
}

/** The plan of a node of the graph (`node` must be one of its nodes). */
export function nodePlan(gp: GraphPlan, node: string): NodePlan {
  let p = gp.nodes.get(node);
  if (p === undefined) {
    p = {
      id: node,
      spec: gp.graph.nodes.get(node)!,
      ix: gp.tables.nodeIx.get(node)!,
      none: routeStep(gp.graph, node, undefined, null),
      routes: new Map(),
      registry: null,
      type: undefined,
    };
    gp.nodes.set(node, p);
  }
  return p;
}

/** The node's type in `registry`, if registered there. */
export function nodeType(np: NodePlan, registry: NodeRegistry): NodeType<never> | undefined {
  if (np.registry === registry) return np.type;
  const type = registry.get(np.spec.type);
  // Only a type found is remembered: one registered later is found then.
  if (type !== undefined) {
    np.registry = registry;
    np.type = type;
  }
  return type;
}

/** The plan of `route` chosen by the node; null when no connector carries it (ROUTE_UNKNOWN). */
export function routePlan(gp: GraphPlan, np: NodePlan, route: string): RoutePlan | null {
  let p = np.routes.get(route);
  if (p === undefined) {
    // Only routes a connector carries have an index (and only those are remembered).
    const ix = gp.tables.routeIx.get(np.id)?.get(route);
    if (ix === undefined) return null;
    p = routeStep(gp.graph, np.id, route, ix);
    np.routes.set(route, p);
  }
  return p;
}

function routeStep(
  graph: CompiledGraph,
  node: string,
  route: string | undefined,
  ix: number | null,
): RoutePlan {
  const frontier = nextFrontier(graph, node, route);
  return { ix, frontier, terminal: reachesTerminal(graph, frontier) };
}
