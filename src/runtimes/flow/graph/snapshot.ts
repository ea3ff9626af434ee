/**
 * Graph save, structural half: parses a posted snapshot into the canonical GraphSnapshot, with ids
 * assigned, node configs normalized and decision conditions synchronized from solid connectors.
 * Any structural violation is one `INVALID_INPUT` (HTTP 400) listing every problem; nothing is saved.
 */
import { NoemaError } from '../../../core/errors.ts';
import type { Json } from '../../../engine/index.ts';
import {
  type DeterministicCondition,
  EDGE_MODES,
  type EdgeMode,
  type FlowNodeType,
  type GraphEdge,
  type GraphNode,
  type GraphSnapshot,
  NODE_TYPES,
} from '../types.ts';
import { normalizeNodeConfig } from './node-config.ts';

export interface StructuralProblem {
  path: string;
  message: string;
}

/** Node and edge ids: a human id, so it is a valid engine node/connector id as well. */
export const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function parseCondition(
  raw: unknown,
  path: string,
  problems: StructuralProblem[],
): DeterministicCondition | null {
  if (raw === undefined || raw === null) return null;
  if (!isObject(raw) || typeof raw.path !== 'string' || (raw.path !== '' && !raw.path.startsWith('/'))) {
    problems.push({ path, message: 'condition must be { path: "<JSON pointer>", equals | in | exists }' });
    return null;
  }
  const tests = ['equals', 'in', 'exists'].filter((k) => raw[k] !== undefined);
  if (tests.length !== 1) {
    problems.push({ path, message: 'condition needs exactly one of equals, in, exists' });
    return null;
  }
  if (raw.in !== undefined && !Array.isArray(raw.in))
    problems.push({ path: `${path}/in`, message: 'in must be an array' });
  if (raw.exists !== undefined && typeof raw.exists !== 'boolean')
    problems.push({ path: `${path}/exists`, message: 'exists must be a boolean' });
  const c: DeterministicCondition = { path: raw.path };
  if (raw.equals !== undefined) c.equals = raw.equals as Json;
  if (raw.in !== undefined) c.in = raw.in as Json[];
  if (raw.exists !== undefined) c.exists = raw.exists as boolean;
  return c;
}

function parseNodes(raw: unknown[], problems: StructuralProblem[]): GraphNode[] {
  const nodes: GraphNode[] = [];
  const seen = new Set<string>();
  raw.forEach((n, i) => {
    const at = `/nodes/${i}`;
    if (!isObject(n)) {
      problems.push({ path: at, message: 'a node must be an object' });
      return;
    }
    if (!(NODE_TYPES as readonly string[]).includes(n.node_type as string)) {
      problems.push({
        path: `${at}/node_type`,
        message: `node_type must be one of ${NODE_TYPES.join(', ')}`,
      });
      return;
    }
    const nodeType = n.node_type as FlowNodeType;
    let id = n.id;
    if (id === undefined || id === null) {
      let k = i + 1;
      while (seen.has(`${nodeType}-${k}`) || raw.some((o) => isObject(o) && o.id === `${nodeType}-${k}`)) k++;
      id = `${nodeType}-${k}`;
    }
    if (typeof id !== 'string' || !ID_PATTERN.test(id)) {
      problems.push({
        path: `${at}/id`,
        message: 'invalid node id (1–64 letters, digits, _ . -; starting alphanumeric)',
      });
      return;
    }
    if (seen.has(id)) {
      problems.push({ path: `${at}/id`, message: `duplicate node id "${id}"` });
      return;
    }
    seen.add(id);
    if (n.config !== undefined && n.config !== null && !isObject(n.config)) {
      problems.push({ path: `${at}/config`, message: 'config must be an object' });
      return;
    }
    if (n.title !== undefined && n.title !== null && typeof n.title !== 'string')
      problems.push({ path: `${at}/title`, message: 'title must be a string' });
    let position: GraphNode['position'] = null;
    if (n.position !== undefined && n.position !== null) {
      const p = n.position;
      if (!isObject(p) || typeof p.x !== 'number' || typeof p.y !== 'number')
        problems.push({ path: `${at}/position`, message: 'position must be { x: number, y: number }' });
      else position = { x: p.x, y: p.y };
    }
    const config = structuredClone((n.config ?? {}) as Record<string, Json>);
    for (const p of normalizeNodeConfig(nodeType, config, true))
      problems.push({ path: `${at}/config${p.path}`, message: p.message });
    if (config.model !== undefined && typeof config.model !== 'string')
      problems.push({
        path: `${at}/config/model`,
        message: 'model must be a string (a model name or @alias)',
      });
    nodes.push({
      id,
      node_type: nodeType,
      title: typeof n.title === 'string' ? n.title : '',
      config,
      position,
    });
  });
  return nodes;
}

function parseEdges(raw: unknown[], nodeIds: Set<string>, problems: StructuralProblem[]): GraphEdge[] {
  const edges: GraphEdge[] = [];
  const seen = new Set<string>();
  raw.forEach((e, i) => {
    const at = `/edges/${i}`;
    if (!isObject(e)) {
      problems.push({ path: at, message: 'an edge must be an object' });
      return;
    }
    const id = e.id ?? `e-${i + 1}`;
    if (typeof id !== 'string' || !ID_PATTERN.test(id) || seen.has(id)) {
      problems.push({
        path: `${at}/id`,
        message: seen.has(id as string) ? `duplicate edge id "${id}"` : 'invalid edge id',
      });
      return;
    }
    seen.add(id);
    for (const end of ['source_node_id', 'target_node_id'] as const) {
      if (typeof e[end] !== 'string' || !nodeIds.has(e[end] as string))
        problems.push({ path: `${at}/${end}`, message: `${end} must name a node of this graph` });
    }
    if (!(EDGE_MODES as readonly string[]).includes(e.edge_mode as string))
      problems.push({ path: `${at}/edge_mode`, message: 'edge_mode must be solid | dotted | dashed' });
    for (const k of ['condition_text', 'route_key'] as const)
      if (e[k] !== undefined && e[k] !== null && typeof e[k] !== 'string')
        problems.push({ path: `${at}/${k}`, message: `${k} must be a string` });
    const condition = parseCondition(e.condition, `${at}/condition`, problems);
    edges.push({
      id,
      source_node_id: e.source_node_id as string,
      target_node_id: e.target_node_id as string,
      edge_mode: e.edge_mode as EdgeMode,
      condition_text: typeof e.condition_text === 'string' ? e.condition_text : null,
      route_key: typeof e.route_key === 'string' ? e.route_key : null,
      condition,
    });
  });
  return edges;
}

/**
 * A decision node's `config.conditions` mirror its solid outgoing connectors: N connectors, N
 * entries `{ connector_id, condition_text, route_key, condition }`, in connector order.
 */
export function syncDecisionConditions(snapshot: GraphSnapshot): void {
  for (const node of snapshot.nodes) {
    if (node.node_type !== 'decision') continue;
    node.config.conditions = snapshot.edges
      .filter((e) => e.source_node_id === node.id && e.edge_mode === 'solid')
      .map((e) => ({
        connector_id: e.id,
        condition_text: e.condition_text ?? '',
        route_key: e.route_key,
        condition: e.condition as Json,
      }));
  }
}

/** Parses a posted snapshot; throws INVALID_INPUT (400) listing every structural problem. */
export function parseGraphSnapshot(body: unknown): GraphSnapshot {
  const problems: StructuralProblem[] = [];
  if (!isObject(body) || !Array.isArray(body.nodes) || !Array.isArray(body.edges)) {
    throw new NoemaError('INVALID_INPUT', 'a graph snapshot is { nodes: [...], edges: [...] }', {
      status: 400,
      details: { errors: [{ path: '', message: 'nodes and edges arrays are required' }] },
    });
  }
  const nodes = parseNodes(body.nodes, problems);
  const edges = parseEdges(body.edges, new Set(nodes.map((n) => n.id)), problems);
  if (problems.length > 0) {
    throw new NoemaError(
      'INVALID_INPUT',
      `graph snapshot rejected: ${problems[0]!.path}: ${problems[0]!.message}`,
      {
        status: 400,
        details: { errors: problems },
        hint: 'fix every listed path; nothing was saved',
      },
    );
  }
  const snapshot = { nodes, edges };
  syncDecisionConditions(snapshot);
  return snapshot;
}
