/**
 * Fits a RunView into a `max_chars` budget (serialized JSON) for `getRun`: the run's identity, status,
 * step, frontier and error always stay; state channels, outputs and contracts are kept while they fit,
 * and every one that is cut is named in `omitted`, with `truncated: true`.
 */
import { clampString, fitToBudget, jsonSize } from '../../core/budget.ts';
import { completedExecutions, pendingExecutions } from '../contracts/views.ts';
import type { ContractView, Json, RunError, RunView } from '../engine.ts';

// A run error longer than this is cut (and its details dropped) when a budget applies.
const MAX_ERROR_MESSAGE_CHARS = 1_000;

type Part =
  | { kind: 'state'; key: string; value: Json }
  | { kind: 'output'; key: string; value: Json }
  | { kind: 'contract'; index: number; contract: ContractView };

/**
 * Keeps state channels, outputs and contracts smallest first while they fit;
 * `pending_executions` / `completed_executions` are derived from the kept contracts. Throws BUDGET_TOO_SMALL when even the bare run (no state, outputs or contracts) does not fit.
 */
export function fitRunView(view: RunView, maxChars: number): RunView {
  const whole: RunView = { ...view, truncated: false };
  if (Number.isInteger(maxChars) && jsonSize(whole) <= maxChars) return whole;
  const { view: base, errorCut } = clampError(view);
  // Smallest first: a prefix of a size-ordered list keeps the most parts, so one huge channel
  // does not push out everything after it. Ties: state, then outputs, then newer contracts.
  const parts: Part[] = [
    ...Object.entries(view.state).map(([key, value]) => ({ kind: 'state' as const, key, value })),
    ...Object.entries(view.outputs).map(([key, value]) => ({ kind: 'output' as const, key, value })),
    ...view.contracts.map((contract, index) => ({ kind: 'contract' as const, index, contract })).reverse(),
  ]
    // A contract also appears in pending_executions or completed_executions.
    .map((part) => ({
      part,
      size: part.kind === 'contract' ? 2 * jsonSize(part.contract) : jsonSize(part.value),
    }))
    .sort((a, b) => a.size - b.size)
    .map((p) => p.part);
  const build = (kept: Part[], cut: boolean): RunView => {
    if (!cut && !errorCut) return whole;
    const state: Record<string, Json> = {};
    const outputs: Record<string, Json> = {};
    const keptContracts: Array<{ index: number; contract: ContractView }> = [];
    for (const p of kept) {
      if (p.kind === 'state') state[p.key] = p.value;
      else if (p.kind === 'output') outputs[p.key] = p.value;
      else keptContracts.push(p);
    }
    const contracts = keptContracts.sort((a, b) => a.index - b.index).map((c) => c.contract);
    return {
      ...base,
      state: inOrder(view.state, state),
      outputs: inOrder(view.outputs, outputs),
      contracts,
      pending_executions: pendingExecutions(contracts),
      completed_executions: completedExecutions(contracts),
      truncated: true,
      omitted: {
        state: Object.keys(view.state).filter((k) => !(k in state)),
        outputs: Object.keys(view.outputs).filter((k) => !(k in outputs)),
        contracts: view.contracts.length - contracts.length,
        error_cut: errorCut,
      },
    };
  };
  return fitToBudget({ build, items: parts, maxChars, dropFrom: 'end' }).value as RunView;
}

function clampError(view: RunView): { view: RunView; errorCut: boolean } {
  const error: RunError | null = view.error;
  if (!error || jsonSize(error) <= MAX_ERROR_MESSAGE_CHARS) return { view, errorCut: false };
  const { details: _d, ...rest } = error;
  const message = clampString(error.message, MAX_ERROR_MESSAGE_CHARS).text;
  return { view: { ...view, error: { ...rest, message } }, errorCut: true };
}

/** The kept entries in the view's own key order. */
function inOrder(all: Record<string, Json>, kept: Record<string, Json>): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const k of Object.keys(all)) if (k in kept) out[k] = kept[k]!;
  return out;
}
