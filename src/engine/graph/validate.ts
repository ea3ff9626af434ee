/** Graph validation before a run: collects every problem and throws one GRAPH_INVALID listing them all. */
import { NoemaError } from '../../core/errors.ts';
import { parseHumanId } from '../../core/ids.ts';
import type { SchemaRegistry } from '../../core/schema-registry.ts';
import { type GraphProblem, type GraphSpec, TERMINAL } from '../engine.ts';
import { loadSchemas } from '../schemas.ts';
import type { NodeRegistry } from './registry.ts';

const MODES = new Set(['solid', 'dotted', 'dashed']);
const REDUCERS = new Set(['value', 'append']);

/** Every problem of `graph`. `schemas` is needed only when a node type declares an `inputSchema`. */
export function graphProblems(
  graph: GraphSpec,
  registry: NodeRegistry,
  schemas?: SchemaRegistry,
): GraphProblem[] {
  const problems: GraphProblem[] = [];
  const add = (code: GraphProblem['code'], path: string, message: string) =>
    problems.push({ code, path, message });
  if (typeof graph !== 'object' || graph === null)
    return [{ code: 'INVALID_FIELD', path: '', message: 'graph must be an object' }];
  if (!Array.isArray(graph.nodes)) add('INVALID_FIELD', '/nodes', 'nodes must be an array');
  if (!Array.isArray(graph.connectors)) add('INVALID_FIELD', '/connectors', 'connectors must be an array');
  if (problems.length > 0) return problems;
  if (graph.max_steps !== undefined && !(Number.isInteger(graph.max_steps) && graph.max_steps > 0)) {
    add('INVALID_FIELD', '/max_steps', 'max_steps must be a positive integer');
  }
  for (const [name, spec] of Object.entries(graph.channels ?? {})) {
    const id = parseHumanId(name, 'channel name');
    if (!id.ok) add('INVALID_CHANNEL', `/channels/${name}`, id.error);
    if (!spec || !REDUCERS.has(spec.reducer))
      add(
        'INVALID_CHANNEL',
        `/channels/${name}/reducer`,
        `channel "${name}" needs reducer "value" or "append"`,
      );
  }

  const nodes = new Map<string, string>();
  for (const [i, node] of graph.nodes.entries()) {
    const id = parseHumanId(node?.id, 'node id');
    if (!id.ok) {
      add('INVALID_FIELD', `/nodes/${i}/id`, id.error);
      continue;
    }
    if (nodes.has(node.id))
      add('DUPLICATE_NODE_ID', `/nodes/${i}/id`, `node id "${node.id}" is used more than once`);
    nodes.set(node.id, node.type);
    if (!registry.has(node.type)) {
      add(
        'UNKNOWN_NODE_TYPE',
        `/nodes/${i}/type`,
        `node "${node.id}" has unknown type "${String(node.type)}"`,
      );
    }
    const attempts = node.max_generation_attempts;
    if (attempts !== undefined && !(Number.isInteger(attempts) && attempts >= 1)) {
      add(
        'INVALID_FIELD',
        `/nodes/${i}/max_generation_attempts`,
        'max_generation_attempts must be an integer >= 1',
      );
    }
    const schema = registry.get(node.type)?.inputSchema;
    if (schema !== undefined && schemas) {
      const r = schemas.validate(schema, node.config ?? null);
      if (!r.ok) {
        for (const e of r.errors)
          add('INVALID_NODE_CONFIG', `/nodes/${i}/config${e.path}`, `node "${node.id}": config${e.message}`);
      }
    }
  }

  const connectorIds = new Set<string>();
  const solidOut = new Map<string, string[]>();
  graph.connectors.forEach((c, i) => {
    const cid = c?.id ?? `${c?.from}->${c?.to}#${i}`;
    if (connectorIds.has(cid))
      add('DUPLICATE_CONNECTOR_ID', `/connectors/${i}/id`, `connector id "${cid}" is used more than once`);
    connectorIds.add(cid);
    if (c.mode !== undefined && !MODES.has(c.mode)) {
      add(
        'INVALID_CONNECTOR',
        `/connectors/${i}/mode`,
        `connector "${cid}" has mode "${String(c.mode)}" (use solid, dotted or dashed)`,
      );
    }
    if (!nodes.has(c.from))
      add(
        'DANGLING_CONNECTOR',
        `/connectors/${i}/from`,
        `connector "${cid}" starts at unknown node "${String(c.from)}"`,
      );
    if (!nodes.has(c.to))
      add(
        'DANGLING_CONNECTOR',
        `/connectors/${i}/to`,
        `connector "${cid}" ends at unknown node "${String(c.to)}"`,
      );
    if (nodes.get(c.from) === TERMINAL)
      add('INVALID_CONNECTOR', `/connectors/${i}/from`, `connector "${cid}" leaves terminal "${c.from}"`);
    if (c.route !== undefined && (c.mode ?? 'solid') !== 'solid') {
      add('INVALID_CONNECTOR', `/connectors/${i}/route`, `connector "${cid}": only solid connectors route`);
    }
    if ((c.mode ?? 'solid') === 'solid' && nodes.has(c.from) && nodes.has(c.to)) {
      solidOut.set(c.from, [...(solidOut.get(c.from) ?? []), c.to]);
    }
  });

  if (!nodes.has(graph.entry)) {
    add('UNKNOWN_ENTRY', '/entry', `entry "${String(graph.entry)}" is not a node of the graph`);
    return problems;
  }
  const terminals = [...nodes].filter(([, type]) => type === TERMINAL).map(([id]) => id);
  if (terminals.length === 0) add('NO_TERMINAL', '/nodes', `the graph has no node of type "${TERMINAL}"`);
  const reached = new Set([graph.entry]);
  const queue = [graph.entry];
  while (queue.length > 0) {
    for (const next of solidOut.get(queue.pop()!) ?? []) {
      if (!reached.has(next)) {
        reached.add(next);
        queue.push(next);
      }
    }
  }
  for (const t of terminals) {
    if (!reached.has(t)) {
      const i = graph.nodes.findIndex((n) => n.id === t);
      add(
        'UNREACHABLE_TERMINAL',
        `/nodes/${i}`,
        `terminal "${t}" cannot be reached from entry "${graph.entry}" over solid connectors`,
      );
    }
  }
  return problems;
}

export async function assertValidGraph(graph: GraphSpec, registry: NodeRegistry): Promise<void> {
  const needsSchemas =
    Array.isArray(graph?.nodes) && graph.nodes.some((n) => registry.get(n?.type)?.inputSchema !== undefined);
  const problems = graphProblems(graph, registry, needsSchemas ? await loadSchemas() : undefined);
  if (problems.length === 0) return;
  throw new NoemaError(
    'GRAPH_INVALID',
    `the graph has ${problems.length} problem(s): ${problems.map((p) => p.message).join('; ')}`,
    {
      details: { problems },
      hint: 'fix every listed problem; nothing was stored',
      status: 400,
    },
  );
}
