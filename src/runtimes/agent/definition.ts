/**
 * Agent definitions: content-addressed documents (canonical JSON, sha256) in `agent_definitions`.
 * A definition is validated and its references must exist; MCP tools given as a server plus tool
 * names are discovered with `tools/list` and pinned (name, description, input schema, and an
 * `mcp_tool` response source per tool) at put time, so a stored definition never changes meaning.
 */
import { canonicalJson, invalidInput, NoemaError, sha256Hex } from '../../core/index.ts';
import { schemas } from '../../core/schema-registry.ts';
import { getMcpServer, getResponseSource, listMcpTools, putResponseSource } from '../../sources/index.ts';
import type { Queryable } from '../../store/store.ts';
import { getAgentGraph } from './graph-store.ts';
import type { AgentMode } from './state/execution-state.ts';

export interface HashRef {
  hash: string;
}

/** A tool as stored: pinned, with the mcp_tool response source that calls it. */
export interface AgentTool {
  name: string;
  description: string;
  input_schema?: Record<string, unknown>;
  source_ref: HashRef;
}

export interface AgentDefinition {
  version: 1;
  label: string;
  description?: string;
  /** The llm_chat_completions source of the ReasoningNode. */
  llm_source_ref: HashRef;
  /** A stored agent graph replacing the default cognitive graph. */
  graph_ref?: HashRef;
  tools: AgentTool[];
  mode: AgentMode;
  max_iterations: number;
  /** adapt: escalate to deep after this many iterations (default 3). */
  escalate_after?: number;
  /** Persona / standing instructions prepended to the reasoning prompt. */
  system_prompt?: string;
  emotion: { enabled: boolean; llm_source_ref?: HashRef };
  memory: { long_term_limit: number; working_memory_turns: number };
  synthesis: { enabled: boolean; threshold: number; llm_source_ref?: HashRef };
  /** Chosen branchmind_* tools over one reasoning-memory workspace (reasoning-memory.ts). */
  reasoning_memory?: { workspace: string; tools: string[] };
}

const HASH_REF = {
  type: 'object',
  required: ['hash'],
  additionalProperties: false,
  properties: { hash: { type: 'string', pattern: '^[0-9a-f]{64}$' } },
};

const TOOL_NAME = { type: 'string', pattern: '^[A-Za-z0-9_.-]{1,64}$' };

/** The input form: tools may be pinned already, or a server plus names to discover. */
export const AGENT_DEFINITION_SCHEMA = {
  type: 'object',
  required: [
    'version',
    'label',
    'llm_source_ref',
    'tools',
    'mode',
    'max_iterations',
    'emotion',
    'memory',
    'synthesis',
  ],
  additionalProperties: false,
  properties: {
    version: { const: 1 },
    label: { type: 'string', pattern: '^[a-z0-9][a-z0-9_.-]{0,127}$' },
    description: { type: 'string', maxLength: 2000 },
    llm_source_ref: HASH_REF,
    graph_ref: HASH_REF,
    tools: {
      type: 'array',
      maxItems: 64,
      items: {
        oneOf: [
          {
            type: 'object',
            required: ['source_ref'],
            additionalProperties: false,
            properties: {
              source_ref: HASH_REF,
              name: TOOL_NAME,
              description: { type: 'string', maxLength: 2000 },
              input_schema: { type: 'object' },
            },
          },
          {
            type: 'object',
            required: ['server_ref', 'tool_names'],
            additionalProperties: false,
            properties: {
              server_ref: HASH_REF,
              tool_names: { type: 'array', items: TOOL_NAME, minItems: 1, maxItems: 64 },
              timeout_ms: { type: 'integer', minimum: 1, maximum: 600000 },
            },
          },
        ],
      },
    },
    mode: { enum: ['fast', 'deep', 'adapt'] },
    max_iterations: { type: 'integer', minimum: 1, maximum: 50 },
    escalate_after: { type: 'integer', minimum: 1, maximum: 50 },
    system_prompt: { type: 'string', maxLength: 8000 },
    emotion: {
      type: 'object',
      required: ['enabled'],
      additionalProperties: false,
      properties: { enabled: { type: 'boolean' }, llm_source_ref: HASH_REF },
    },
    memory: {
      type: 'object',
      required: ['long_term_limit', 'working_memory_turns'],
      additionalProperties: false,
      properties: {
        long_term_limit: { type: 'integer', minimum: 0, maximum: 50 },
        working_memory_turns: { type: 'integer', minimum: 0, maximum: 50 },
      },
    },
    reasoning_memory: {
      type: 'object',
      required: ['workspace', 'tools'],
      additionalProperties: false,
      properties: {
        workspace: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$' },
        tools: {
          type: 'array',
          minItems: 1,
          maxItems: 64,
          uniqueItems: true,
          items: { type: 'string', pattern: '^branchmind_[a-z_]{1,64}$' },
        },
      },
    },
    synthesis: {
      type: 'object',
      required: ['enabled', 'threshold'],
      additionalProperties: false,
      properties: {
        enabled: { type: 'boolean' },
        threshold: { type: 'integer', minimum: 1, maximum: 100 },
        llm_source_ref: HASH_REF,
      },
    },
  },
} as const;

type ToolInput =
  | { source_ref: HashRef; name?: string; description?: string; input_schema?: Record<string, unknown> }
  | { server_ref: HashRef; tool_names: string[]; timeout_ms?: number };

type Env = Readonly<Record<string, string | undefined>>;

async function assertLlmSource(q: Queryable, ref: HashRef, path: string): Promise<void> {
  const s = await getResponseSource(q, ref.hash).catch((err) => {
    throw invalidInput(`${path}: ${(err as Error).message}`, { path, hash: ref.hash });
  });
  if (s.content.interface.name !== 'llm_chat_completions')
    throw invalidInput(`${path} must be an llm_chat_completions source`, {
      path,
      interface: s.content.interface.name,
    });
}

/**
 * MCP servers commonly declare draft-07 (`$schema`) input schemas; the object schemas tools use
 * mean the same under 2020-12, which is what Noema validates with, so the dialect tag is dropped.
 */
function withoutDialect(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = schema;
  return rest;
}

async function pinTools(q: Queryable, input: ToolInput[], env: Env): Promise<AgentTool[]> {
  const out: AgentTool[] = [];
  for (const [i, t] of input.entries()) {
    if ('source_ref' in t) {
      const s = await getResponseSource(q, t.source_ref.hash).catch((err) => {
        throw invalidInput(`tools/${i}: ${(err as Error).message}`, { path: `/tools/${i}/source_ref` });
      });
      const iface = s.content.interface as { name: string; tool_name?: string };
      if (iface.name !== 'mcp_tool')
        throw invalidInput(`tools/${i} must reference an mcp_tool source`, {
          path: `/tools/${i}`,
          interface: iface.name,
        });
      out.push({
        name: t.name ?? iface.tool_name ?? 'tool',
        description: t.description ?? (s.content as { description?: string }).description ?? '',
        ...(t.input_schema ? { input_schema: withoutDialect(t.input_schema) } : {}),
        source_ref: { hash: s.hash },
      });
      continue;
    }
    await getMcpServer(q, t.server_ref.hash).catch((err) => {
      throw invalidInput(`tools/${i}: ${(err as Error).message}`, { path: `/tools/${i}/server_ref` });
    });
    const found = await listMcpTools(q, t.server_ref.hash, { env });
    for (const name of t.tool_names) {
      const d = found.find((f) => f.name === name);
      if (!d)
        throw invalidInput(`tools/${i}: the MCP server has no tool "${name}"`, {
          path: `/tools/${i}/tool_names`,
          available: found.map((f) => f.name),
        });
      const source = await putResponseSource(q, {
        version: 1,
        description: d.description.slice(0, 2000),
        interface: {
          name: 'mcp_tool',
          server_ref: t.server_ref,
          tool_name: name,
          timeout_ms: t.timeout_ms ?? 30000,
        },
      });
      out.push({
        name,
        description: d.description,
        input_schema: withoutDialect(d.input_schema),
        source_ref: { hash: source.hash },
      });
    }
  }
  const seen = new Set<string>();
  for (const t of out) {
    if (seen.has(t.name)) throw invalidInput(`two tools are named "${t.name}"`, { name: t.name });
    seen.add(t.name);
    if (t.input_schema) {
      const c = schemas.checkSchema(t.input_schema);
      if (!c.ok)
        throw invalidInput(`tool "${t.name}": input_schema is not a valid JSON Schema`, { errors: c.errors });
    }
  }
  return out;
}

/**
 * Validates a definition, checks every reference, pins MCP tools, stores it and returns its hash.
 * Bad input is INVALID_INPUT and stores nothing (tool discovery may have stored response sources,
 * which are content-addressed and harmless).
 */
export async function putAgent(
  q: Queryable,
  doc: unknown,
  options: { env?: Env; memoryTools?: readonly string[] } = {},
): Promise<{ hash: string; definition: AgentDefinition }> {
  const r = schemas.validate<Omit<AgentDefinition, 'tools'> & { tools: ToolInput[] }>(
    AGENT_DEFINITION_SCHEMA,
    doc,
  );
  if (!r.ok) throw invalidInput('agent definition is invalid', { errors: r.errors }, 'see docs/agents.md');
  const d = r.value;
  await assertLlmSource(q, d.llm_source_ref, '/llm_source_ref');
  if (d.emotion.llm_source_ref) await assertLlmSource(q, d.emotion.llm_source_ref, '/emotion/llm_source_ref');
  if (d.synthesis.llm_source_ref)
    await assertLlmSource(q, d.synthesis.llm_source_ref, '/synthesis/llm_source_ref');
  if (d.graph_ref) await getAgentGraph(q, d.graph_ref.hash);
  if (d.reasoning_memory) {
    const offered = options.memoryTools;
    if (!offered)
      throw new NoemaError('REASONING_MEMORY_UNAVAILABLE', 'this runtime has no reasoning-memory tools', {
        status: 400,
        hint: 'create the runtime with the reasoningMemory port (noema serve and noema agent do)',
      });
    const unknown = d.reasoning_memory.tools.filter((t) => !offered.includes(t));
    if (unknown.length > 0)
      throw invalidInput(`unknown reasoning-memory tools: ${unknown.join(', ')}`, {
        path: '/reasoning_memory/tools',
        available: offered,
      });
  }
  const definition: AgentDefinition = { ...d, tools: await pinTools(q, d.tools, options.env ?? process.env) };
  const clash = definition.tools.find((t) => d.reasoning_memory?.tools.includes(t.name));
  if (clash)
    throw invalidInput(`tool "${clash.name}" is both an MCP tool and a reasoning-memory tool`, {
      name: clash.name,
    });
  const text = canonicalJson(definition);
  const hash = sha256Hex(text);
  await q.run(
    'INSERT INTO agent_definitions (hash, label, content, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (hash) DO NOTHING',
    [hash, definition.label, text, Date.now()],
  );
  return { hash, definition: JSON.parse(text) as AgentDefinition };
}

const cache = new Map<string, AgentDefinition>();

/** A stored definition by hash (immutable, so cached). */
export async function getAgent(q: Queryable, hash: string): Promise<AgentDefinition> {
  const hit = cache.get(hash);
  if (hit) return hit;
  const row = await q.get<{ content: string }>('SELECT content FROM agent_definitions WHERE hash = ?', [
    hash,
  ]);
  if (!row)
    throw new NoemaError('UNKNOWN_AGENT', `no agent definition with hash ${hash}`, {
      status: 404,
      details: { hash },
    });
  const def = JSON.parse(row.content) as AgentDefinition;
  if (cache.size > 1000) cache.clear();
  cache.set(hash, def);
  return def;
}

/** The newest definition stored under a label. */
export async function getAgentByLabel(
  q: Queryable,
  label: string,
): Promise<{ hash: string; definition: AgentDefinition }> {
  const row = await q.get<{ hash: string }>(
    'SELECT hash FROM agent_definitions WHERE label = ? ORDER BY created_at DESC, hash LIMIT 1',
    [label],
  );
  if (!row)
    throw new NoemaError('UNKNOWN_AGENT', `no agent definition labelled "${label}"`, {
      status: 404,
      details: { label },
      hint: 'store one with POST /agents (or putAgent) first',
    });
  return { hash: row.hash, definition: await getAgent(q, row.hash) };
}

export async function listAgents(
  q: Queryable,
  limit = 50,
): Promise<Array<{ hash: string; label: string; created_at: number }>> {
  const rows = await q.all<{ hash: string; label: string; created_at: number }>(
    'SELECT hash, label, created_at FROM agent_definitions ORDER BY created_at DESC, hash LIMIT ?',
    [Math.min(200, Math.max(1, limit))],
  );
  return rows.map((r) => ({ ...r, created_at: Number(r.created_at) }));
}
