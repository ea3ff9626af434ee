/**
 * Performs the ReasoningNode's model calls that stream their answer (`payload.stream: "response"`)
 * while a session turn records them: the same source invocation as the engine's sources executor
 * (a durable `source_invocations` + `llm_calls` row linked to the run, node and contract), with a
 * chunk observer that scans the streamed JSON for its `response` string and hands each new piece
 * to the turn (`text_delta` events, live only). Anything else goes to `fallback`.
 */
import { NoemaError, toNoemaError } from '../../../core/index.ts';
import type { ActionExecutor, ContractFailure, Json } from '../../../engine/index.ts';
import {
  getJsonSchema,
  getResponseSource,
  type InvocationKind,
  invokeSource,
} from '../../../sources/index.ts';
import type { Store } from '../../../store/store.ts';
import { ResponseTextScanner } from './response-scanner.ts';

/** Where a run's response text goes as it streams: `offset` is where `text` starts in the response. */
export type TextSink = (piece: { contract_id: string; text: string; offset: number }) => void;

interface StreamingPayload {
  source_hash: string;
  request: Json;
  result_schema_hash?: string;
  kind?: InvocationKind;
  stream?: 'response';
}

function failureOf(err: unknown): ContractFailure {
  const e = toNoemaError(err);
  return { code: e.code, message: e.message, retryable: e.retryable, details: e.details };
}

export function streamingLlmExecutor(
  store: Store,
  env: Readonly<Record<string, string | undefined>>,
  sinkOf: (run_id: string) => TextSink | undefined,
  fallback: ActionExecutor,
): ActionExecutor {
  return {
    async execute(contract, ctx) {
      const p = contract.payload as Partial<StreamingPayload> | null;
      const sink = sinkOf(ctx.run_id);
      if (contract.action_type !== 'llm_generation' || p?.stream !== 'response' || !sink || !p.source_hash)
        return fallback.execute(contract, ctx);
      const source = await getResponseSource(store, p.source_hash);
      const resultSchema = p.result_schema_hash ? await getJsonSchema(store, p.result_schema_hash) : null;
      const scanner = new ResponseTextScanner();
      const out = await invokeSource(store, {
        source,
        request: p.request ?? null,
        kind: p.kind ?? 'llm_generation',
        links: {
          workflow_node_id: ctx.node_id,
          run_id: ctx.run_id,
          contract_id: contract.contract_id,
          metadata: { engine_step: ctx.step, action_type: contract.action_type },
        },
        resultSchema,
        signal: ctx.signal,
        env,
        onChunk(text) {
          const offset = scanner.length;
          const piece = scanner.feed(text);
          if (piece) sink({ contract_id: contract.contract_id, text: piece, offset });
        },
      });
      if (out.ok) return { ok: true, result: (out.output ?? null) as Json };
      const message = out.error?.message ?? 'source call failed';
      return {
        ok: false,
        error_message: `${out.failure_class ?? 'failed'}: ${message}`,
        error: failureOf(out.error ?? new NoemaError('SOURCE_FAILED', message)),
      };
    },
  };
}
