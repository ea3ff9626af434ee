/**
 * What a flowchart node sees: the compiled node config, the run's metadata, and its incoming
 * context (connector propagation as the engine computed it, plus the run input) as one document
 * JSON pointers (`patch_source_path`, decision `path`) address.
 */
import { readPointer } from '../../../core/json-pointer.ts';
import type { InputContext, Json, NodeContext } from '../../../engine/index.ts';
import type { Store } from '../../../store/store.ts';
import type { FlowNodeType } from '../types.ts';

/** The engine node config a flowchart node compiles to. */
export interface CompiledNode {
  flowchart_id: string;
  flowchart_node_id: string;
  node_type: FlowNodeType;
  title: string;
  config: Record<string, Json>;
  /** Solid outgoing connectors (decision nodes route by their ids). */
  outgoing: Array<{ connector_id: string; target_node_id: string; route_key: string | null }>;
}

export interface RunMeta {
  flowchart_run_id: string;
  flowchart_id: string;
  request_id: string;
  correlation_id: string | null;
}

/** The runtime's dependencies, shared by every node type of one flow engine. */
export interface FlowRuntime {
  store: Store;
  /** Milliseconds; injectable so retention is testable. */
  now(): number;
  /** Model used when a node config names none (`@flow` → NOEMA_LLM_MODEL_FLOW or NOEMA_LLM_MODEL). */
  defaultModel: string;
}

export type FlowCtx = NodeContext<CompiledNode>;

/** The document a node's JSON pointers address. */
export interface IncomingDoc {
  input: Json;
  /** Outputs of solid and dotted predecessors, by node id. */
  upstream: Record<string, Json>;
  upstream_nodes: InputContext['upstream_nodes'];
  context_only_upstream_nodes: InputContext['context_only_upstream_nodes'];
  attachment_only_upstream_nodes: InputContext['attachment_only_upstream_nodes'];
  propagated_attachments: Json[];
}

export function incomingDoc(ctx: FlowCtx): IncomingDoc {
  const ic = ctx.input_context;
  const upstream: Record<string, Json> = {};
  for (const u of ic.context_only_upstream_nodes) upstream[u.node_id] = u.output;
  for (const u of ic.upstream_nodes) upstream[u.node_id] = u.output;
  return {
    input: (ctx.state.input as Json) ?? null,
    upstream,
    upstream_nodes: ic.upstream_nodes,
    context_only_upstream_nodes: ic.context_only_upstream_nodes,
    attachment_only_upstream_nodes: ic.attachment_only_upstream_nodes,
    propagated_attachments: ic.propagated_attachments,
  };
}

function textOf(v: Json | undefined): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'object' && !Array.isArray(v)) {
    for (const k of ['text', 'content', 'message', 'query', 'query_text'])
      if (typeof v[k] === 'string') return v[k] as string;
  }
  return JSON.stringify(v);
}

/** The text a deterministic node works on: its first triggering predecessor's output, else the run input. */
export function contextText(doc: IncomingDoc): string {
  const first = doc.upstream_nodes[0]?.output;
  const t = textOf(first);
  return t !== '' ? t : textOf(doc.input);
}

/** RFC 6901 JSON pointer lookup over own properties; `undefined` when the path does not exist. */
export function jsonPointer(doc: unknown, pointer: string): Json | undefined {
  const r = readPointer(doc, pointer);
  return r.ok ? (r.value as Json) : undefined;
}
