/**
 * Every model call of a flowchart node: an engine action performed by the sources executor, so it is
 * a durable, traced `source_invocations` row of kind `flow_node` (with its `llm_calls` trace), and a
 * node re-executed after a crash replays the journaled result instead of calling again.
 */
import { validateCompiled } from '../../../core/compiled-validators.ts';
import { NoemaError } from '../../../core/errors.ts';
import type { JsonSchema } from '../../../core/schema-registry.ts';
import { fromStrictDelivery, toStrictDelivery } from '../../../core/strict-delivery.ts';
import { actRetrying, type Json } from '../../../engine/index.ts';
import { putJsonSchema, putResponseSource } from '../../../sources/index.ts';
import type { FlowCtx, FlowRuntime } from './context.ts';
import { carryStartNow } from './node-start.ts';

export interface ModelCall {
  /** The node's model (a name or `@alias`), else the runtime default. */
  model?: string;
  system: string;
  user: string;
  /**
   * Strict JSON: the reply must match it. Sent as `response_format` in its strict-subset form
   * (`core/strict-delivery.ts`) when it has one, the reply read back and checked against it; a
   * schema with none (a free-form object, a user's `allOf`) is sent as written.
   */
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

const deliveries = new WeakMap<object, JsonSchema>();

/** The schema the model is sent for `schema`: its strict-subset form, or itself when it has none. */
function deliveryOf(schema: JsonSchema): JsonSchema {
  if (typeof schema !== 'object') return schema;
  let d = deliveries.get(schema);
  if (d === undefined) {
    const converted = toStrictDelivery(schema);
    d = converted.ok ? converted.schema : schema;
    deliveries.set(schema, d);
  }
  return d;
}

export async function callModel(ctx: FlowCtx, rt: FlowRuntime, call: ModelCall): Promise<Json> {
  // The call's record commits the node's start: it is carried first.
  carryStartNow(ctx);
  const model = call.model ?? rt.defaultModel;
  const sourceHash = await storedHash(rt, `source:${model}`, () =>
    putResponseSource(rt.store, {
      version: 1,
      label: 'flow_node',
      interface: { name: 'llm_chat_completions', model, schema_delivery: 'response_format' },
    }),
  );
  const delivered = deliveryOf(call.schema);
  const schemaHash = await storedHash(rt, `schema:${JSON.stringify(delivered)}`, () =>
    putJsonSchema(rt.store, delivered),
  );
  // A model call has no side effect: one a crash interrupted is made again (only that one), one
  // that failed retryably (rate limited, network) again after the retry lane's wait.
  const contract = await actRetrying(
    ctx,
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
  if (delivered === call.schema) return contract.result as Json;
  const value = fromStrictDelivery(contract.result, call.schema);
  const v = validateCompiled(call.schema, value);
  if (!v.ok)
    throw new NoemaError(
      'FLOW_LLM_FAILED',
      `model reply does not match its schema: ${v.errors.map((e) => `${e.path || '/'} ${e.message}`).join('; ')}`,
      { details: { contract_id: contract.contract_id, key: call.key, errors: v.errors as never } },
    );
  return value as Json;
}
