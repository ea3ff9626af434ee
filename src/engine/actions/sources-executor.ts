/**
 * The ActionExecutor over the sources layer: a contract whose payload names a stored ResponseSource
 * is performed with `invokeSource`, so every execution is a durable `source_invocations` row linked
 * to the run, node and contract (`run_id`, `workflow_node_id`, `contract_id`).
 */

import { NoemaError } from '../../core/errors.ts';
import { loadOnce } from '../../core/load-once.ts';
// Types only: the sources layer (its source kinds' SDKs and clients, ~30 MB of RSS) is loaded on
// the first contract performed, so a process that imports the engine but never calls a source
// (`noema mcp`, `noema migrate`, an engine without actions) never pays for it.
import type {
  InvocationKind,
  InvocationLinks,
  InvocationOutcome,
  InvokeOptions,
  SourceCall,
} from '../../sources/index.ts';
import type { Store } from '../../store/store.ts';
import { failureOf } from '../contracts/failure.ts';
import type { ActionContext, ActionExecutor, ActionOutcome, ExecutionContract, Json } from '../engine.ts';
import { StoredDocuments } from './stored-documents.ts';

/** What a source-backed contract's `payload` carries. */
export interface SourceActionPayload {
  /** sha256 of a stored ResponseSource (`putResponseSource`). */
  source_hash: string;
  /** The JSON request: arguments for MCP tools, the body for HTTP JSON, a chat request for LLMs. */
  request: Json;
  /** Optional stored JSON Schema the result must match. */
  result_schema_hash?: string;
  /** Why the call happens (default `agent_tool_call`). */
  kind?: InvocationKind;
  tool_name?: string;
  /**
   * Extra provenance for the invocation row (a world's attempt, turn, subject, the generation that
   * asked for the call). `run_id` and `contract_id` always come from the engine; `workflow_node_id`
   * defaults to the performing node.
   */
  links?: Omit<InvocationLinks, 'run_id' | 'contract_id' | 'invocation_seq'>;
}

export interface SourcesExecutorOptions {
  /** Operator configuration for the sources (URLs, keys); default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  timeoutMs?: number;
  /**
   * Optional: an observer of a contract's streamed model text (`invokeSource`'s `onChunk`), asked once
   * per execution; `undefined` streams unobserved. Lets a runtime show a reply as it arrives while the
   * call keeps this executor's joined transitions and crash recovery.
   */
  chunkObserver?: (contract: ExecutionContract, ctx: ActionContext) => ((text: string) => void) | undefined;
  /**
   * Optional: names a contract's `model_output_kind` from its result (`invokeSource`'s `outputKind`),
   * asked once per execution; the kind is written with the finished row, in its transaction.
   */
  outputKind?: (contract: ExecutionContract, ctx: ActionContext) => SourceCall['outputKind'] | undefined;
}

type SourcesLayer = typeof import('../../sources/index.ts');
/** The sources layer, imported once on first use (a failed import is retried on the next call). */
const sources = loadOnce((): Promise<SourcesLayer> => import('../../sources/index.ts'));

function payloadOf(contract: ExecutionContract): SourceActionPayload {
  const p = contract.payload as Partial<SourceActionPayload> | null;
  if (!p || typeof p !== 'object' || typeof p.source_hash !== 'string' || !('request' in p)) {
    throw new NoemaError(
      'INVALID_INPUT',
      `contract ${contract.contract_id}: payload needs source_hash and request`,
      {
        hint: 'a source-backed action carries { source_hash, request, result_schema_hash?, kind?, tool_name? }',
      },
    );
  }
  return p as SourceActionPayload;
}

export function sourcesExecutor(store: Store, options: SourcesExecutorOptions = {}): ActionExecutor {
  const documents = new StoredDocuments(store, sources);
  return {
    // The contract's RUNNING move is committed with the invocation's `running` row (one commit).
    joinsTransitions: true,
    async execute(contract: ExecutionContract, ctx: ActionContext): Promise<ActionOutcome> {
      const p = payloadOf(contract);
      const { invokeSource } = await sources();
      const source = await documents.source(p.source_hash);
      const resultSchema = p.result_schema_hash ? await documents.schema(p.result_schema_hash) : null;
      const onChunk = options.chunkObserver?.(contract, ctx);
      const outputKind = options.outputKind?.(contract, ctx);
      const out = await invokeSource(
        store,
        {
          source,
          request: p.request,
          kind: p.kind ?? 'agent_tool_call',
          links: {
            workflow_node_id: ctx.node_id,
            tool_name: p.tool_name ?? null,
            ...p.links,
            run_id: ctx.run_id,
            contract_id: contract.contract_id,
            metadata: { ...p.links?.metadata, engine_step: ctx.step, action_type: contract.action_type },
          },
          resultSchema,
          signal: ctx.signal,
          ...(options.env ? { env: options.env } : {}),
          ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
          ...(onChunk ? { onChunk } : {}),
          ...(outputKind ? { outputKind } : {}),
        },
        joined(ctx),
      );
      return actionOutcome(out);
    },

    /**
     * A contract left RUNNING by a dead process: if its invocation finished durably (succeeded or
     * failed), that is the outcome and the call is not made again; a `running` or `interrupted`
     * invocation, or none, is unknown (`null`).
     */
    async recover(contract: ExecutionContract, ctx: ActionContext): Promise<ActionOutcome | null> {
      const p = contract.payload as Partial<SourceActionPayload> | null;
      const attempt_id = p && typeof p === 'object' ? (p.links?.attempt_id ?? null) : null;
      const { finishedCallOfContract } = await sources();
      const call = await finishedCallOfContract(store, {
        contract_id: contract.contract_id,
        run_id: ctx.run_id,
        attempt_id,
      });
      if (!call) return null;
      if (call.ok) return { ok: true, result: (call.output ?? null) as Json };
      return failed(call.failure_class, call.error);
    },
  };
}

/** The engine's transitions joined to the invocation's two transactions (when it hands them over). */
function joined(ctx: ActionContext): InvokeOptions {
  const t = ctx.transitions;
  if (!t) return {};
  const options: InvokeOptions = { running: (write) => t.running(write) };
  const { runningSync, recorded } = t;
  if (runningSync) options.runningSync = (write) => runningSync(write);
  // With `recorded` the invocation finishes on its own (one statement where the store can) and
  // reports its outcome; else its finish commits in the engine's transaction.
  if (recorded) options.recorded = (out) => recorded(actionOutcome(out));
  else
    options.finished = (write) =>
      t.finished(async (tx) => {
        const out = await write(tx);
        return out === null || out === 'landed' ? out : actionOutcome(out);
      });
  return options;
}

function actionOutcome(out: InvocationOutcome): ActionOutcome {
  if (out.ok) return { ok: true, result: (out.output ?? null) as Json };
  return failed(out.failure_class, out.error);
}

function failed(failure_class: string | null, error: NoemaError | null): ActionOutcome {
  const message = error?.message ?? 'source call failed';
  return {
    ok: false,
    error_message: `${failure_class ?? 'failed'}: ${message}`,
    error: failureOf(error ?? new NoemaError('SOURCE_FAILED', message)),
  };
}
