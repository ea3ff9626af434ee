/**
 * A contract's moves as values: the view a transition leads to, the move an action's outcome makes,
 * and whether a row already holds a view's status (a retry probing whether its COMMIT landed).
 */
import type { Queryable } from '../../store/store.ts';
import { viewOf } from '../contracts/contract-store.ts';
import { engineFailure } from '../contracts/failure.ts';
import { transition } from '../contracts/transitions.ts';
import type { ActionOutcome, ContractFailure, ContractStatus, ContractView, Json } from '../engine.ts';

/** Whether the contract row holds `c`'s status (a retry finding its earlier COMMIT landed). */
export async function hasStatus(tx: Queryable, c: ContractView): Promise<boolean> {
  const row = await tx.get<{ status: string }>('SELECT status FROM engine_contracts WHERE contract_id = ?', [
    c.contract_id,
  ]);
  return row?.status === c.status;
}

export type MoveExtra = {
  result?: Json;
  error_message?: string;
  error?: ContractFailure;
  observation?: string | undefined;
};

/** The move an outcome makes: COMPLETED with its result or FAILED with its failure. */
export function settleMove(outcome: ActionOutcome): { to: ContractStatus; extra: MoveExtra } {
  return outcome.ok
    ? { to: 'COMPLETED', extra: { result: outcome.result, observation: outcome.observation } }
    : {
        to: 'FAILED',
        extra: {
          error_message: outcome.error_message,
          error: outcome.error ?? engineFailure('ACTION_FAILED', outcome.error_message),
          observation: outcome.observation,
        },
      };
}

export function nextView(
  c: ContractView,
  to: ContractStatus,
  actor: string,
  extra: MoveExtra,
  at: number,
): ContractView {
  const input: Parameters<typeof transition>[1] = { to, actor, at };
  if (extra.result !== undefined) input.result = extra.result;
  if (extra.error_message !== undefined) input.error_message = extra.error_message;
  if (extra.error !== undefined) input.error = extra.error;
  return viewOf(transition(c, input), c.node_id, extra.observation);
}
