/** The flow bench's flowchart and script, and the source calls a run of it made (to make again alone). */

import type { JsonSchema } from '../../src/core/schema-registry.ts';
import { ADD_SCHEMA } from '../../src/runtimes/flow/nodes/memory.ts';
import { PATCH_SCHEMA } from '../../src/runtimes/flow/nodes/plan.ts';
import {
  getJsonSchema,
  getResponseSource,
  type InvocationKind,
  type SourceCall,
  type StoredResponseSource,
} from '../../src/sources/index.ts';
import type { Store } from '../../src/store/store.ts';
import { deliveredReply } from '../../src/testing/strict-replies.ts';

export const SCRIPT = {
  rules: [
    {
      match: { any_message_contains: 'store in long-term memory' },
      reply: { json: deliveredReply({ text: 'the printer jams' }, ADD_SCHEMA) },
    },
    {
      match: { any_message_contains: 'You maintain a plan' },
      // As the model answers the strict-subset schema the plan node sends.
      reply: { json: deliveredReply({ stages: [{ stage_key: 's', title: 'S' }] }, PATCH_SCHEMA) },
    },
  ],
  default: { json: { text: 'summary' } },
};

/** start, three blocks of (llm, memory add, memory retrieve, plan, milestone, decision), end = 20 nodes. */
export function twentyNodes() {
  const nodes: Array<Record<string, unknown>> = [{ id: 'start', node_type: 'start' }];
  for (let b = 0; b < 3; b++)
    nodes.push(
      { id: `llm${b}`, node_type: 'llm', config: { prompt: 'Summarize.' } },
      { id: `add${b}`, node_type: 'memory', config: { action: 'add', mode: 'llm_guided' } },
      {
        id: `get${b}`,
        node_type: 'memory',
        config: { action: 'retrieve', mode: 'deterministic', query_text: 'printer' },
      },
      {
        id: `plan${b}`,
        node_type: 'plan',
        config: { mode: 'llm_guided', store_mode: 'append', retention_mode: 'max_count' },
      },
      { id: `ms${b}`, node_type: 'milestone', config: { action: 'create_or_update' } },
      { id: `dec${b}`, node_type: 'decision' },
    );
  nodes.push({ id: 'end', node_type: 'end' });
  const edges = nodes.slice(1).map((n, i) => ({
    source_node_id: nodes[i]!.id,
    target_node_id: n.id,
    edge_mode: 'solid',
    ...(String(nodes[i]!.id).startsWith('dec') ? { condition: { path: '/input/go', exists: true } } : {}),
  }));
  return { nodes, edges };
}

/** A call of a flowchart run, to make again with `invokeSource`. */
export interface Replayed {
  call: Omit<SourceCall, 'env'>;
}

const sourceCache = new Map<string, Promise<StoredResponseSource>>();
const schemaCache = new Map<string, Promise<{ hash: string; schema: JsonSchema }>>();

/** The source calls a flowchart run made, in order: each one's source, request, kind, schemas and metadata. */
export async function callsOf(store: Store, flowchartRunId: string): Promise<Replayed[]> {
  const rows = await store.all<{
    source_hash: string;
    invocation_kind: InvocationKind;
    request_json: string;
    input_schema_hash: string | null;
    output_schema_hash: string | null;
    metadata: string;
    status: string;
  }>(
    `SELECT source_hash, invocation_kind, request_json, input_schema_hash, output_schema_hash, metadata, status
       FROM source_invocations WHERE run_id = ? ORDER BY source_invocation_id`,
    [flowchartRunId],
  );
  // A failed call (a reply its schema rejects, retried) would make both sides measure failure paths.
  const failed = rows.filter((r) => r.status !== 'succeeded');
  if (failed.length > 0)
    throw new Error(`the flowchart run made ${failed.length} call(s) that did not succeed: fix the script`);
  const schema = (hash: string | null) => {
    if (!hash) return null;
    let s = schemaCache.get(hash);
    if (!s) {
      s = getJsonSchema(store, hash);
      schemaCache.set(hash, s);
    }
    return s;
  };
  return Promise.all(
    rows.map(async (r) => {
      let source = sourceCache.get(r.source_hash);
      if (!source) {
        source = getResponseSource(store, r.source_hash);
        sourceCache.set(r.source_hash, source);
      }
      return {
        call: {
          source: await source,
          request: JSON.parse(r.request_json) as unknown,
          kind: r.invocation_kind,
          inputSchema: await schema(r.input_schema_hash),
          resultSchema: await schema(r.output_schema_hash),
          links: { metadata: JSON.parse(r.metadata) as Record<string, unknown> },
        },
      };
    }),
  );
}
