/**
 * What the agent node types share: the store (reads), the content addresses of the reply schemas,
 * the channel shapes of an agent run, and the one way a node calls a model (an engine action through
 * the sources layer, so every call is a durable, traced source invocation linked to the run).
 */
import { validateCompiled } from '../../../core/compiled-validators.ts';
import type { JsonSchema } from '../../../core/schema-registry.ts';
import { fromStrictDelivery } from '../../../core/strict-delivery.ts';
import { actRetrying, type ContractView, type Json, type NodeContext } from '../../../engine/index.ts';
import {
  type FailureClass,
  finishedCallOfContract,
  RETRY_BY_CLASS,
  setModelOutputKind,
} from '../../../sources/index.ts';
import type { Store } from '../../../store/store.ts';
import type { OutputJudges } from '../output-judges.ts';
import type { ReasoningMemoryPort } from '../reasoning-memory.ts';
import type { MemoryContext } from '../state/agent-state.ts';
import type { AgentMode, ChatMessage, Notification, StopReason } from '../state/execution-state.ts';

export interface AgentNodeDeps {
  store: Store;
  /** The reasoning-memory tools, when the surface provides them. */
  memory?: ReasoningMemoryPort;
  /** The stored schemas sent to the model (the strict-subset forms of the contracts in `reply-schema.ts`). */
  schemaHashes: { reasoning: string; emotion: string; insights: string; synthesis: string };
  /** Where a model call's judge waits for the sources executor (the kind rides the finished row). */
  judges?: OutputJudges;
}

/** `session` channel. */
export interface SessionRef {
  session_id: string;
  agent_hash: string;
  user_id: string;
}

/** `execution` channel: ExecutionState without the parts that are views (messages, calls, notifications). */
export interface ExecutionCore {
  query: string;
  user_id: string;
  iteration: number;
  max_iterations: number;
  mode: AgentMode;
  effective_mode: 'fast' | 'deep';
  stop_reason: StopReason | null;
  response: string | null;
  debug: boolean;
  /** Tool/ECS contracts the ReasoningNode has already read (so it can tell this round's results). */
  seen_contracts: string[];
}

export type { ChatMessage, MemoryContext, Notification };

/** A session event a node emits (as `node.updated`); the session layer numbers and stores it. */
export function emit(ctx: NodeContext<unknown>, event: string, data: Record<string, unknown>): void {
  ctx.update({ event, data } as unknown as Json);
}

export function note(kind: string, message: string): Notification {
  return { kind, message, at: new Date().toISOString() };
}

export type ModelCall =
  | { ok: true; value: Record<string, unknown>; contract: ContractView; marked: boolean }
  | { ok: false; content_failure: boolean; error: string; contract: ContractView };

/**
 * True when a FAILED model-call contract failed on the model's content (not JSON, or not matching
 * the schema): read from the contract's typed failure (`error.details.failure_class`, recorded by
 * the sources layer), never from its message text.
 */
export function isContentFailure(contract: Pick<ContractView, 'error'>): boolean {
  const cls = contract.error?.details?.failure_class;
  // The classes retried with a corrective message (not JSON, not matching, cut off at the limit).
  return typeof cls === 'string' && RETRY_BY_CLASS[cls as FailureClass] === 'corrected';
}

/** The generation's trace row, as a contract of this run names it (null when it never finished). */
async function invocationOf(store: Store, ctx: NodeContext<unknown>, contract: ContractView) {
  const call = await finishedCallOfContract(store, { contract_id: contract.contract_id, run_id: ctx.run_id });
  return call?.source_invocation_id ?? null;
}

/**
 * Names a generation's `model_output_kind` on its trace row: the accepted kind, or `rejected` with
 * the reason (kept in the row's metadata as `model_output_reason`). Written again, to the same
 * value, when a replayed node judges the same reply.
 */
export async function markModelOutput(
  store: Store,
  ctx: NodeContext<unknown>,
  contract: ContractView,
  kind: string,
  reason?: string,
): Promise<void> {
  const id = await invocationOf(store, ctx, contract);
  if (id === null) return;
  await store.transaction((tx) => setModelOutputKind(tx, id, kind, reason));
}

/**
 * Calls an LLM source as an engine action. A failed call's typed failure tells a content failure
 * (retry) from a call failure. The model is sent the strict-subset form of `contract` (stored
 * under `schema_hash`); its reply is read back and validated against `contract` itself, so what the
 * subset cannot say (bounds, lengths) is a content failure too. A model call has no side effect, so
 * one a crash interrupted is made again in the same attempt (as a world generation is), each redo
 * an action of its own: a finished redo replays, so only the interrupted one is made again — up to
 * MAX_INTERRUPTED_REDOS times. A content failure marks the row `rejected` (with the reason); an
 * accepted reply is marked `output_kind` (or `kind_of` its value) when given — with the finished row
 * when `judges` carries the judgement to the executor, else afterwards. `marked` says the accepted
 * reply's kind is on its row already (else a caller that judges the reply itself marks it).
 */
export async function callModel(
  ctx: NodeContext<unknown>,
  input: {
    store: Store;
    judges?: OutputJudges | undefined;
    source_hash: string;
    messages: Array<{ role: string; content: string }>;
    schema_hash: string;
    contract: JsonSchema;
    output_kind?: string;
    /** The accepted reply's kind from its value; null when the caller will reject it itself. */
    kind_of?: (value: Record<string, unknown>) => string | null;
    key: string;
    /** Stream the reply's `response` string to the session as it arrives (the ReasoningNode). */
    stream_response?: boolean;
  },
): Promise<ModelCall> {
  const payload: Json = {
    source_hash: input.source_hash,
    request: { messages: input.messages },
    result_schema_hash: input.schema_hash,
    kind: 'llm_generation',
    ...(input.stream_response ? { stream: 'response' } : {}),
  };
  const kindOf = (value: unknown): string | null => {
    if (!validateCompiled(input.contract, value).ok) return null;
    return input.output_kind ?? input.kind_of?.(value as Record<string, unknown>) ?? null;
  };
  // What the judge named for the last reply it saw in this process (undefined: none seen, a replay),
  // and the reply read back into the contract's shape, which the contract's result is when it is
  // that reply (the same object).
  let judged: { output: unknown; value: unknown; kind: string | null } | undefined;
  const judge = (r: { ok: true; output: unknown } | { ok: false }) => {
    if (!r.ok) return null;
    const value = fromStrictDelivery(r.output as Json, input.contract);
    const kind = kindOf(value);
    judged = { output: r.output, value, kind };
    return kind;
  };
  const act = () => actRetrying(ctx, 'llm_generation', payload, { key: input.key });
  const canJudge = input.judges && (input.output_kind !== undefined || input.kind_of !== undefined);
  const contract = canJudge ? await input.judges!.around(ctx.run_id, ctx.node_id, judge, act) : await act();
  if (contract.status === 'COMPLETED' && contract.result && typeof contract.result === 'object') {
    const value =
      judged?.output === contract.result ? judged.value : fromStrictDelivery(contract.result, input.contract);
    const v = validateCompiled(input.contract, value);
    if (!v.ok) {
      const error = `the reply does not match its contract: ${v.errors.map((e) => `${e.path || '/'} ${e.message}`).join('; ')}`;
      await markModelOutput(input.store, ctx, contract, 'rejected', error);
      return { ok: false, content_failure: true, error, contract };
    }
    const kind = input.output_kind ?? input.kind_of?.(value as Record<string, unknown>) ?? null;
    // Marked with the finished row when the judge named this reply's kind (same JSON as the result).
    const marked =
      kind !== null &&
      judged !== undefined &&
      judged.kind === kind &&
      sameReply(judged.output, contract.result);
    if (kind !== null && !marked) await markModelOutput(input.store, ctx, contract, kind);
    return { ok: true, value: value as Record<string, unknown>, contract, marked: kind !== null };
  }
  const error = contract.error_message ?? contract.error?.message ?? `model call ended ${contract.status}`;
  const content_failure = isContentFailure(contract);
  if (content_failure) await markModelOutput(input.store, ctx, contract, 'rejected', error);
  return { ok: false, content_failure, error, contract };
}

function sameReply(output: unknown, result: unknown): boolean {
  return output === result || JSON.stringify(output) === JSON.stringify(result);
}

/** The corrective notes of earlier attempts as one message for the next attempt. */
export function correctiveMessage(ctx: NodeContext<unknown>): Array<{ role: string; content: string }> {
  if (ctx.corrective_context.length === 0) return [];
  const lines = ctx.corrective_context.map((c) => `- attempt ${c.attempt}: ${c.error}. ${c.corrective}`);
  return [{ role: 'user', content: `Your previous reply was rejected:\n${lines.join('\n')}` }];
}
