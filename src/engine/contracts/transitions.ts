/**
 * The one ExecutionContract transition table (seed 000) and the function that enforces it.
 * Every status change in the engine goes through `transition`; an illegal one changes nothing.
 */
import { NoemaError } from '../../core/errors.ts';
import type { ContractStatus, ExecutionContract } from '../engine.ts';

export const CONTRACT_STATUSES: readonly ContractStatus[] = [
  'PENDING',
  'RUNNING',
  'COMPLETED',
  'FAILED',
  'WAITING',
  'CANCELLED',
];

/** Legal moves. COMPLETED, FAILED and CANCELLED are final. */
export const TRANSITIONS: Readonly<Record<ContractStatus, readonly ContractStatus[]>> = {
  PENDING: ['RUNNING', 'WAITING', 'CANCELLED'],
  RUNNING: ['COMPLETED', 'FAILED', 'WAITING', 'CANCELLED'],
  WAITING: ['RUNNING', 'CANCELLED'],
  COMPLETED: [],
  FAILED: [],
  CANCELLED: [],
};

export function isFinal(status: ContractStatus): boolean {
  return TRANSITIONS[status].length === 0;
}

export function canTransition(from: ContractStatus, to: ContractStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

export interface TransitionInput {
  to: ContractStatus;
  actor: string;
  at: number;
  /** Set with `COMPLETED`. */
  result?: ExecutionContract['result'];
  /** Set with `FAILED` (and `CANCELLED`, optionally). */
  error_message?: string;
  /** Set with `FAILED`: the failure as data. */
  error?: ExecutionContract['error'];
}

/**
 * Returns the contract after one transition (a new object; the input is not touched), or throws
 * INVALID_TRANSITION naming the legal moves.
 */
export function transition(contract: ExecutionContract, input: TransitionInput): ExecutionContract {
  const from = contract.status;
  if (!canTransition(from, input.to)) {
    throw new NoemaError(
      'INVALID_TRANSITION',
      `contract ${contract.contract_id} cannot move ${from} → ${input.to}`,
      {
        details: { contract_id: contract.contract_id, from, to: input.to, allowed: [...TRANSITIONS[from]] },
        hint: isFinal(from)
          ? `the contract is already ${from}`
          : `from ${from} the contract may move to ${TRANSITIONS[from].join(', ')}`,
        status: 409,
      },
    );
  }
  return {
    ...contract,
    status: input.to,
    result: input.to === 'COMPLETED' ? (input.result ?? null) : contract.result,
    error_message: input.error_message !== undefined ? input.error_message : contract.error_message,
    error: input.error !== undefined ? input.error : contract.error,
    transitions: [...contract.transitions, { from, to: input.to, at: input.at, actor: input.actor }],
  };
}

/** A new contract: its first transition records the creation (`null → PENDING`). */
export function createContract(
  contract_id: string,
  action_type: string,
  payload: ExecutionContract['payload'],
  actor: string,
  at: number,
): ExecutionContract {
  return {
    contract_id,
    action_type,
    status: 'PENDING',
    payload,
    result: null,
    error_message: null,
    error: null,
    transitions: [{ from: null, to: 'PENDING', at, actor }],
  };
}
