/** Read side of runs: the RunView of `getRun` and the RunOutcome of a run this process does not hold. */
import { contractsOfRun } from '../contracts/contract-store.ts';
import { completedExecutions, pendingExecutions } from '../contracts/views.ts';
import type { Json, RunError, RunOutcome, RunView } from '../engine.ts';
import type { CompiledGraph } from '../graph/compile.ts';
import { loadState } from '../journal/journal.ts';
import type { EngineDeps } from './deps.ts';
import type { RunRow } from './runs.ts';

export async function runView(deps: EngineDeps, row: RunRow, graph: CompiledGraph): Promise<RunView> {
  const { state } = await loadState(deps.store, graph, row.run_pk);
  const contracts = await contractsOfRun(deps.store, row.run_pk);
  const outputs: Record<string, Json> = {};
  for (const [node, out] of Object.entries(state.outputs)) if (out.o !== undefined) outputs[node] = out.o;
  return {
    run_id: row.run_id,
    graph_hash: row.graph_hash,
    status: row.status,
    step: state.step,
    frontier: state.frontier.map((f) => f.node),
    state: state.channels,
    outputs,
    contracts,
    pending_executions: pendingExecutions(contracts),
    completed_executions: completedExecutions(contracts),
    error: row.error ? (JSON.parse(row.error) as RunError) : null,
    created_at: Number(row.created_at),
    updated_at: Number(row.updated_at),
    truncated: false,
  };
}

export async function outcomeOf(deps: EngineDeps, row: RunRow, graph: CompiledGraph): Promise<RunOutcome> {
  const v = await runView(deps, row, graph);
  return {
    run_id: v.run_id,
    status: v.status,
    step: v.step,
    error: v.error,
    waiting: v.contracts.filter((c) => c.status === 'WAITING'),
  };
}
