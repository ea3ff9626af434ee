/**
 * Actions a crash interrupted, made again. An action whose process stopped while it ran ends FAILED
 * (`ACTION_INTERRUPTED`, or its source invocation marked `interrupted` by recovery): whether the other
 * side answered is unknown. One without side effects (a model call), or declared idempotent, is made
 * again — each redo an action of its own, keyed `<key>:redo:<n>`, so a finished redo replays from the
 * journal and only the interrupted one is made again.
 */
import type { ContractView, Json, NodeContext } from '../engine.ts';

/** How many times an interrupted action is made again by default. */
export const MAX_INTERRUPTED_REDOS = 3;

/** True when the contract ended because its process stopped mid-action (the outcome is unknown). */
export function isInterrupted(contract: Pick<ContractView, 'status' | 'error'>): boolean {
  if (contract.status !== 'FAILED') return false;
  return (
    contract.error?.code === 'ACTION_INTERRUPTED' || contract.error?.details?.failure_class === 'interrupted'
  );
}

/** `ctx.act`, then the same action again while it ended interrupted, up to `maxRedos` times. */
export async function actRedoingInterrupted(
  ctx: Pick<NodeContext<unknown>, 'act'>,
  action_type: string,
  payload: Json,
  options: { key: string; acrossAttempts?: boolean; maxRedos?: number; onRedo?: (redo: number) => void },
): Promise<ContractView> {
  const across = options.acrossAttempts ? { acrossAttempts: true } : {};
  let contract = await ctx.act(action_type, payload, { key: options.key, ...across });
  const max = options.maxRedos ?? MAX_INTERRUPTED_REDOS;
  for (let redo = 1; isInterrupted(contract) && redo <= max; redo++) {
    options.onRedo?.(redo);
    contract = await ctx.act(action_type, payload, { key: `${options.key}:redo:${redo}`, ...across });
  }
  return contract;
}
