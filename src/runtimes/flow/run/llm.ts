/**
 * Every model call of a flowchart node: an engine action performed by the sources executor, so it is
 * a durable, traced `source_invocations` row of kind `flow_node` (with its `llm_calls` trace), and a
 * node re-executed after a crash replays the journaled result instead of calling again.
 */
import { NoemaError } from '../../../core/errors.ts';
import type { JsonSchema } from '../../../core/schema-registry.ts';
import type { Json } from '../../../engine/index.ts';
import { putJsonSchema, putResponseSource } from '../../../sources/index.ts';
import type { FlowCtx, FlowRuntime } from './context.ts';

export interface ModelCall {
  /** The node's model (a name or `@alias`), else the runtime default. */
  model?: string;
  system: string;
  user: string;
  /** Strict JSON: the reply must match it (sent as `response_format`, checked on receipt). */
  schema: JsonSchema;
  schema_name: string;
  /** Distinct per call within one node execution (e.g. `llm_guided-2`). */
  key: string;
}

// Definitions are content-addressed and never change once stored: each store is written once per
// model / schema, not once per call (two writes saved on every model call).
const stored = new WeakMap<object, Map<string, string>>();

async function storedHash(
  rt: FlowRuntime,
  key: string,
  put: () => Promise<{ hash: string }>,
): Promise<string> {
  let m = stored.get(rt.store);
  if (!m) {
    m = new Map();
    stored.set(rt.store, m);
  }
  const hit = m.get(key);
  if (hit) return hit;
  const { hash } = await put();
  if (m.size > 1000) m.clear();
  m.set(key, hash);
  return hash;
}

export async function callModel(ctx: FlowCtx, rt: FlowRuntime, call: ModelCall): Promise<Json> {
  const model = call.model ?? rt.defaultModel;
  const sourceHash = await storedHash(rt, `source:${model}`, () =>
    putResponseSource(rt.store, {
      version: 1,
      label: 'flow_node',
      interface: { name: 'llm_chat_completions', model, schema_delivery: 'response_format' },
    }),
  );
  const schemaHash = await storedHash(rt, `schema:${JSON.stringify(call.schema)}`, () =>
    putJsonSchema(rt.store, call.schema),
  );
  const contract = await ctx.act(
    'llm_call',
    {
      source_hash: sourceHash,
      result_schema_hash: schemaHash,
      kind: 'flow_node',
      request: {
        messages: [
          { role: 'system', content: call.system },
          { role: 'user', content: call.user },
        ],
        schema_name: call.schema_name,
      },
    },
    { key: call.key },
  );
  if (contract.status !== 'COMPLETED')
    throw new NoemaError(
      'FLOW_LLM_FAILED',
      `model call failed: ${contract.error_message ?? contract.status}`,
      {
        details: { contract_id: contract.contract_id, key: call.key },
      },
    );
  return contract.result as Json;
}
