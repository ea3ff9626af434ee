/**
 * The memory node (seed 003): `add` / `retrieve` on the flowchart's long-term memory through the
 * system `llmctl-mcp` binding; `llm_guided` infers strict JSON first, `deterministic` works on the
 * incoming context directly; retries, one fallback hop and degraded markers via runWithFallback.
 */

import { NoemaError } from '../../../core/errors.ts';
import type { Json } from '../../../engine/index.ts';
import { clampLimit } from '../../../memory/index.ts';
import type { Transaction } from '../../../store/store.ts';
import { llmctlMemoryAdd, llmctlMemoryRetrieve } from '../memory-ops.ts';
import { contextText } from '../run/context.ts';
import type { FlowNodeImpl, FlowOutcome } from '../run/flow-node.ts';
import { callModel } from '../run/llm.ts';
import { runWithFallback } from '../run/modes.ts';
import { type NodeMode, SYSTEM_MCP_KEY } from '../types.ts';

const TEMPLATES = {
  add: 'Memory action: add. {effective_prompt}',
  retrieve: 'Memory action: retrieve. {effective_prompt}',
} as const;

const INTERNAL = {
  add: 'You decide what to store in long-term memory. Answer with one JSON object: {"text": string (required, what to remember), "store_mode"?: "append" | "replace", "confidence"?: number 0..1}.',
  retrieve:
    'You decide how to search long-term memory. Answer with one JSON object: {"query_text"?: string, "memory_id"?: positive integer, "limit"?: integer 1..50, "confidence"?: number 0..1}.',
} as const;

export const ADD_SCHEMA = {
  type: 'object',
  required: ['text'],
  properties: {
    text: { type: 'string', minLength: 1 },
    store_mode: { enum: ['append', 'replace'] },
    confidence: { type: 'number', minimum: 0, maximum: 1 },
  },
  additionalProperties: false,
};

export const RETRIEVE_SCHEMA = {
  type: 'object',
  properties: {
    query_text: { type: 'string' },
    memory_id: { type: 'integer', minimum: 1 },
    limit: { type: 'integer' },
    confidence: { type: 'number', minimum: 0, maximum: 1 },
  },
  additionalProperties: false,
};

type AddPlan = { text: string; store_mode: 'append' | 'replace'; llm: Json | null };
type Retrieved = { items: Json[]; query: Json; llm: Json | null };

export const memoryNode: FlowNodeImpl = async ({ ctx, rt, run, node, incoming }) => {
  const c = node.config;
  const keys = c.mcp_server_keys;
  if (keys !== undefined && !(Array.isArray(keys) && keys.length === 1 && keys[0] === SYSTEM_MCP_KEY))
    throw new NoemaError(
      'MEMORY_MCP_BINDING_INVALID',
      `memory node ${node.flowchart_node_id} names non-system MCP keys`,
      {
        details: { mcp_server_keys: keys as Json, allowed: [SYSTEM_MCP_KEY] },
        hint: `memory nodes are bound to ${SYSTEM_MCP_KEY} by the system; save the graph again to restore the binding`,
      },
    );
  const action = c.action as 'add' | 'retrieve';
  const additive = typeof c.additive_prompt === 'string' ? c.additive_prompt.trim() : '';
  const text = contextText(incoming);
  const inferred =
    action === 'add'
      ? `Store the key information from the incoming context${text ? `: ${text.slice(0, 200)}` : '.'}`
      : `Retrieve memories relevant to: ${text.slice(0, 200)}`;
  const effective = additive || inferred;
  const internal = INTERNAL[action];
  const ask = (key: string, schema: Record<string, unknown>) =>
    callModel(ctx, rt, {
      ...(typeof c.model === 'string' ? { model: c.model } : {}),
      system: `${internal}\n${effective}`,
      user: JSON.stringify({ input: incoming.input, upstream: incoming.upstream }),
      schema,
      schema_name: `memory_${action}`,
      key,
    });
  const modes = {
    mode: c.mode as NodeMode,
    retry_count: Number(c.retry_count ?? 1),
    fallback_enabled: c.fallback_enabled !== false,
  };

  const base = {
    action,
    action_prompt_template: TEMPLATES[action],
    internal_action_prompt: internal,
    additive_prompt: additive,
    inferred_prompt: inferred,
    effective_prompt: effective,
    mcp_server_keys: [SYSTEM_MCP_KEY],
  };

  if (action === 'add') {
    const r = await runWithFallback<AddPlan>(modes, async (mode, key) => {
      if (mode === 'llm_guided') {
        const out = (await ask(key, ADD_SCHEMA)) as {
          text: string;
          store_mode?: 'append' | 'replace';
          confidence?: number;
        };
        return { text: out.text, store_mode: out.store_mode ?? 'append', llm: out as unknown as Json };
      }
      const t = typeof c.text === 'string' && c.text.trim() !== '' ? c.text : text;
      if (t.trim() === '')
        throw new NoemaError('MEMORY_NOTHING_TO_STORE', 'the incoming context has no text to store');
      return { text: t, store_mode: c.store_mode === 'replace' ? 'replace' : 'append', llm: null };
    });
    return async (tx: Transaction): Promise<FlowOutcome> => {
      const added = await llmctlMemoryAdd(tx, {
        flowchart_id: run.flowchart_id,
        text: r.value.text,
        store_mode: r.value.store_mode,
      });
      const stored = added.memory as unknown as Json;
      return outcome(
        base,
        r,
        {
          stored_memory: stored,
          retrieved_memories: [],
          action_results: [{ operation: added.operation, memory_id: added.memory.memory_id }] as Json,
          ...(r.value.llm ? { llm_guided_add: r.value.llm } : {}),
        },
        added.memory.memory_id,
      );
    };
  }

  const r = await runWithFallback<Retrieved>(modes, async (mode, key) => {
    let query: { query_text?: string; memory_id?: number; limit?: number };
    let llm: Json | null = null;
    if (mode === 'llm_guided') {
      const out = (await ask(key, RETRIEVE_SCHEMA)) as {
        query_text?: string;
        memory_id?: number;
        limit?: number;
      };
      llm = out as unknown as Json;
      query = { ...out, ...(out.limit !== undefined ? { limit: clampLimit(out.limit) } : {}) };
      delete (query as { confidence?: number }).confidence;
    } else {
      query = {
        ...(typeof c.query_text === 'string'
          ? { query_text: c.query_text }
          : text
            ? { query_text: text }
            : {}),
        ...(typeof c.memory_id === 'number' ? { memory_id: c.memory_id } : {}),
        limit: clampLimit(typeof c.limit === 'number' ? c.limit : 10),
      };
    }
    const got = await llmctlMemoryRetrieve(rt.store, { flowchart_id: run.flowchart_id, ...query });
    return { items: got.items as unknown as Json[], query: query as Json, llm };
  });
  const first = (r.value.items[0] as { memory_id?: number } | undefined)?.memory_id ?? null;
  return outcome(
    base,
    r,
    {
      stored_memory: null,
      retrieved_memories: r.value.items,
      action_results: [{ operation: 'retrieved', query: r.value.query, count: r.value.items.length }] as Json,
      ...(r.value.llm ? { llm_guided_retrieve: r.value.llm } : {}),
    },
    first,
  );
};

function outcome(
  base: Record<string, Json>,
  r: {
    fallback: null | { failed_mode: string; fallback_mode: string; fallback_reason: string };
    mode: string;
    attempts: unknown[];
  },
  specific: Record<string, Json>,
  memory_id: number | null,
): FlowOutcome {
  const degraded = r.fallback
    ? {
        execution_status: 'success_with_warning',
        fallback_used: true,
        failed_mode: r.fallback.failed_mode,
        fallback_mode: r.fallback.fallback_mode,
        fallback_reason: r.fallback.fallback_reason,
      }
    : {
        execution_status: 'success',
        fallback_used: false,
        failed_mode: null,
        fallback_mode: null,
        fallback_reason: null,
      };
  const routing_state: Json = { executed_mode: r.mode, attempts: r.attempts as Json };
  const payload = { ...base, ...specific, ...degraded, routing_state };
  const output: Json = { action: base.action as Json, ...specific, ...degraded };
  return { output, routing_state, artifact: { artifact_type: 'memory', payload, memory_id } };
}
