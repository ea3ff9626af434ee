/**
 * Test helpers for `noema worker`: a worker process started on a store (its announced engine owner
 * read from its first line), and flowchart runs queued on the store by this process without executing
 * them, as an API process that leaves them to workers would.
 */

import {
  type CreateFlowchartInput,
  createFlowchart,
  createFlowEngine,
  createFlowRun,
} from '../runtimes/flow/index.ts';
import type { Store } from '../store/store.ts';
import { type RunningCli, startCli } from './cli.ts';
import { EXAMPLE, readJson } from './flow-kit.ts';

export interface WorkerProcess {
  cli: RunningCli;
  /** The engine owner it claims as (`engine_runs.lease_owner`). */
  owner: string;
}

export async function startWorkerCli(env: NodeJS.ProcessEnv, args: string[] = []): Promise<WorkerProcess> {
  const cli = startCli(['worker', ...args], env);
  try {
    // A loaded machine can take a while to start a process.
    const [, owner] = await cli.waitFor(/noema worker (\S+) working on/, 60_000);
    return { cli, owner: owner as string };
  } catch (err) {
    // Not handed to the caller: not left running either.
    cli.child.kill('SIGKILL');
    throw err;
  }
}

/** Imports a flowchart (default: the support-triage example) and queues `count` runs of it; returns their ids. */
export async function queueFlowRuns(
  store: Store,
  count: number,
  flowchart: Record<string, unknown> = readJson(EXAMPLE),
): Promise<string[]> {
  const fc = await createFlowchart(store, flowchart as unknown as CreateFlowchartInput);
  // Only creates runs (the graph's node types are registered to validate it); executes none.
  const engine = createFlowEngine(store);
  try {
    const ids: string[] = [];
    for (let i = 0; i < count; i++)
      ids.push(
        (await createFlowRun(store, engine, fc.flowchart_id, { input: { message: `jam ${i}` } }))
          .flowchart_run_id,
      );
    return ids;
  } finally {
    await engine.close();
  }
}

/** The statuses of `run_ids` in `engine_runs`, in order. */
export async function runStatuses(store: Store, run_ids: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const id of run_ids) {
    const r = await store.get<{ status: string }>('SELECT status FROM engine_runs WHERE run_id = ?', [id]);
    out.push(r?.status ?? 'missing');
  }
  return out;
}
