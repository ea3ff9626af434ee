/**
 * The ReasoningNode's streamed reply, observed while a session turn records it: for a model call
 * marked `payload.stream: "response"`, each new piece of the reply JSON's `response` string goes to
 * the turn (live `text_delta` events). The call itself is the sources executor's, unchanged.
 */
import type { ActionContext, ExecutionContract } from '../../../engine/index.ts';
import { ResponseTextScanner } from './response-scanner.ts';

/** Where a run's response text goes as it streams: `offset` is where `text` starts in the response. */
export type TextSink = (piece: { contract_id: string; text: string; offset: number }) => void;

/** A `chunkObserver` for the sources executor: a fresh scanner per streamed reasoning call. */
export function replyTextObserver(
  sinkOf: (run_id: string) => TextSink | undefined,
): (contract: ExecutionContract, ctx: ActionContext) => ((text: string) => void) | undefined {
  return (contract, ctx) => {
    const p = contract.payload as { stream?: unknown } | null;
    if (contract.action_type !== 'llm_generation' || p?.stream !== 'response') return undefined;
    const sink = sinkOf(ctx.run_id);
    if (!sink) return undefined;
    const scanner = new ResponseTextScanner();
    return (text) => {
      const offset = scanner.length;
      const piece = scanner.feed(text);
      if (piece) sink({ contract_id: contract.contract_id, text: piece, offset });
    };
  };
}
