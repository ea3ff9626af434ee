/**
 * Stored agent graphs (`agent_graphs`): a definition's `graph_ref` replaces the default cognitive
 * graph with an authored one over the same node types. Content-addressed; the runtime adds the
 * agent channels, so an authored graph names only nodes, connectors, entry and max_steps.
 */
import { canonicalJson, invalidInput, NoemaError, sha256Hex } from '../../core/index.ts';
import { schemas } from '../../core/schema-registry.ts';
import type { GraphSpec } from '../../engine/index.ts';
import type { Queryable } from '../../store/store.ts';

export type AgentGraph = Pick<GraphSpec, 'entry' | 'nodes' | 'connectors' | 'max_steps'>;

const AGENT_GRAPH_SCHEMA = {
  type: 'object',
  required: ['entry', 'nodes', 'connectors'],
  additionalProperties: false,
  properties: {
    entry: { type: 'string' },
    nodes: { type: 'array', minItems: 1, maxItems: 200, items: { type: 'object' } },
    connectors: { type: 'array', maxItems: 1000, items: { type: 'object' } },
    max_steps: { type: 'integer', minimum: 1, maximum: 100000 },
  },
};

/** Stores a graph that `validate` (the engine's validation with the agent channels) accepted. */
export async function putAgentGraph(
  q: Queryable,
  graph: unknown,
  validate: (g: AgentGraph) => Promise<void>,
): Promise<{ hash: string }> {
  const r = schemas.validate<AgentGraph>(AGENT_GRAPH_SCHEMA, graph);
  if (!r.ok) throw invalidInput('agent graph is invalid', { errors: r.errors });
  await validate(r.value);
  const text = canonicalJson(r.value);
  const hash = sha256Hex(text);
  await q.run(
    'INSERT INTO agent_graphs (hash, content, created_at) VALUES (?, ?, ?) ON CONFLICT (hash) DO NOTHING',
    [hash, text, Date.now()],
  );
  return { hash };
}

export async function getAgentGraph(q: Queryable, hash: string): Promise<AgentGraph> {
  const row = await q.get<{ content: string }>('SELECT content FROM agent_graphs WHERE hash = ?', [hash]);
  if (!row)
    throw new NoemaError('UNKNOWN_AGENT_GRAPH', `no agent graph with hash ${hash}`, {
      status: 404,
      details: { hash },
    });
  return JSON.parse(row.content) as AgentGraph;
}
