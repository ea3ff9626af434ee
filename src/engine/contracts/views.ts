/** Derived views of contracts: `pending_executions` / `completed_executions` and the legacy observation string. */
import { canonicalJson } from '../../core/canonical-json.ts';
import type { ContractView, ExecutionContract } from '../engine.ts';
import { isFinal } from './transitions.ts';

export function pendingExecutions(contracts: readonly ContractView[]): ContractView[] {
  return contracts.filter((c) => !isFinal(c.status));
}

export function completedExecutions(contracts: readonly ContractView[]): ContractView[] {
  return contracts.filter((c) => isFinal(c.status));
}

/**
 * The backward-compatible `observation` (seed 000): the result as text, or `Error: …`. Only for old
 * consumers; status decisions read `contract.status`.
 */
export function observationOf(contract: ExecutionContract): string | null {
  if (contract.status === 'COMPLETED') {
    return typeof contract.result === 'string' ? contract.result : canonicalJson(contract.result);
  }
  if (contract.status === 'FAILED') return `Error: ${contract.error_message ?? 'failed'}`;
  if (contract.status === 'CANCELLED')
    return `Cancelled${contract.error_message ? `: ${contract.error_message}` : ''}`;
  return null;
}
