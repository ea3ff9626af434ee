/**
 * The run loop: executes super-steps (step.ts) while this process holds the run's lease, and ends
 * the run when its frontier reaches a terminal, the step limit or nowhere. A heartbeat keeps the
 * lease; if it is lost, the loop stops without writing (the journal append is fenced by the lease).
 */

import { incidentLog } from '../../core/incident-log.ts';
import { warn } from '../../core/warn.ts';
import type { ContractView, RunError, RunOutcome, RunStatus } from '../engine.ts';
import type { RunEvents } from '../events/run-events.ts';
import { type CompiledGraph, reachesTerminal } from '../graph/compile.ts';
import type { LoadedRun } from '../journal/journal.ts';
import { RunContracts, type RunRef } from './contracts-in-run.ts';
import { type EngineDeps, LeaseLost } from './deps.ts';
import { isPromiseLike } from './node-runner.ts';
import { abandonLease, heartbeat, releaseRun } from './runs.ts';
import type { RunState } from './state.ts';
import { runStep, type StepRun, type StopOf } from './step.ts';
import { graphPlan } from './step-plan.ts';
import type { StepWork } from './step-work.ts';

export async function executeRun(
  deps: EngineDeps,
  run: RunRef,
  graph: CompiledGraph,
  loaded: LoadedRun,
  contracts: ContractView[],
  events: RunEvents,
): Promise<RunOutcome> {
  const abort = new AbortController();
  const state = loaded.state;
  const rc = new RunContracts(deps, run, state, contracts, events);
  const plan = graphPlan(graph);
  const stepRun: StepRun = {
    deps,
    run,
    graph,
    state,
    contracts: rc,
    attempts: loaded.attempts,
    signal: abort.signal,
    // A run nothing executed yet has no step whose records could exist: none of its steps may repeat.
    firstStep: loaded.fresh ? state.step : state.step + 1,
    aborted: false,
    events,
    plan,
    stopOf: (status, error, work) =>
      events.stops
        ? { status, error, state: state.channels, contracts: work ? contractsAfter(rc, work) : rc.all() }
        : undefined,
  };
  const stopOf = stepRun.stopOf;
  // The step loop reads `stepRun.aborted`, a plain field: `signal.aborted` is a call into Node per read.
  const stop = () => {
    stepRun.aborted = true;
    abort.abort();
  };
  const beatLog = incidentLog(`run ${run.run_id}: lease heartbeat`);
  const timer = setInterval(
    () => {
      heartbeat(deps.store, run.run_pk, deps.owner, deps.now(), deps.leaseMs).then(
        (held) => {
          beatLog.ok();
          if (!held) stop();
        },
        // The next tick retries; if the lease expires meanwhile, the fenced writes notice.
        (err: unknown) => beatLog.fail(err),
      );
    },
    Math.max(10, Math.floor(deps.leaseMs / 3)),
  );
  timer.unref();
  const outcome = (status: RunStatus, error: RunError | null = null): RunOutcome => {
    const o: RunOutcome = {
      run_id: run.run_id,
      status,
      step: state.step,
      error,
      waiting: status === 'waiting' ? rc.all().filter((c) => c.status === 'WAITING') : [],
    };
    // A run still running (its lease lost) goes on elsewhere: what this process holds is not final.
    if (status !== 'running') o.final = { state: state.channels, contracts: rc.all() };
    return o;
  };
  if (events.observes('run.updated')) {
    events.progress({
      type: 'run.updated',
      run_id: run.run_id,
      status: 'running',
      step: state.step,
      at: deps.now(),
    });
  }
  let stepped = false;
  try {
    for (;;) {
      if (stepRun.aborted) throw new LeaseLost();
      if (state.frontier.length === 0) {
        return outcome(
          'failed',
          await finish(deps, events, run, state, stopOf, 'failed', {
            code: 'DEAD_END',
            message: 'no node to run and no terminal reached',
          }),
        );
      }
      // After a step's commit the frontier is known not to be terminal (the commit would have
      // completed the run): only a run's first frontier is checked here.
      if (!stepped && reachesTerminal(graph, state.frontier)) {
        return outcome('completed', await finish(deps, events, run, state, stopOf, 'completed', null));
      }
      if (state.step >= graph.maxSteps) {
        return outcome(
          'failed',
          await finish(deps, events, run, state, stopOf, 'failed', {
            code: 'STEP_LIMIT',
            message: `the run reached max_steps (${graph.maxSteps})`,
          }),
        );
      }
      // The step's end: the run's status after its commit, or the error that fails the run.
      const stepping = runStep(stepRun);
      const end =
        typeof stepping === 'string' ? stepping : isPromiseLike(stepping) ? await stepping : stepping;
      if (typeof end !== 'string')
        return outcome('failed', await finish(deps, events, run, state, stopOf, 'failed', end));
      if (end !== 'running') return outcome(end);
      stepped = true;
    }
  } catch (err) {
    if (err instanceof LeaseLost)
      return outcome('running', { code: 'LEASE_LOST', message: 'another process holds this run now' });
    // A retryable error (the store unreachable) may pass: leave the run `running` to be reclaimed.
    if ((err as { retryable?: unknown } | null)?.retryable === true) {
      // Stop whatever of this run is still in flight (its writes are fenced anyway), and give the
      // lease up if the store answers, so another process need not wait for it to expire.
      stop();
      await abandonLease(deps.store, run.run_pk, deps.owner, deps.now()).catch(() => {});
      throw err;
    }
    // Anything else, left `running`, would be reclaimed after lease expiry and fail the same way forever.
    const error: RunError = { code: 'INTERNAL', message: (err as Error | null)?.message || String(err) };
    try {
      return outcome('failed', await finish(deps, events, run, state, stopOf, 'failed', error));
    } catch (finishErr) {
      if (finishErr instanceof LeaseLost)
        return outcome('running', { code: 'LEASE_LOST', message: 'another process holds this run now' });
      throw err;
    }
  } finally {
    clearInterval(timer);
    await events.flush().catch((err) =>
      warn(
        'NOEMA_EVENT_FLUSH_FAILED',
        'noema: progress events of a run could not be sent to other processes',
        {
          run_id: run.run_id,
          error: (err as Error | null)?.message ?? String(err),
        },
      ),
    );
  }
}

/** The run's contracts as the step's commit leaves them (`rc` takes the step's after it committed). */
function contractsAfter(rc: RunContracts, work: StepWork): ContractView[] {
  if (work.plain || work.contracts.length + work.moved.length === 0) return rc.all();
  const byId = new Map(rc.byId);
  for (const c of work.contracts) byId.set(c.contract_id, c);
  for (const c of work.moved) byId.set(c.contract_id, c);
  return [...byId.values()];
}

/** Ends the run (completed or failed) in one transaction, if this process still holds the lease. */
async function finish(
  deps: EngineDeps,
  events: RunEvents,
  run: RunRef,
  state: RunState,
  stopOf: StopOf,
  status: 'completed' | 'failed',
  error: RunError | null,
): Promise<RunError | null> {
  const now = deps.now();
  await events.transaction(
    async (tx, emit) => {
      if (!(await releaseRun(tx, run.run_pk, deps.owner, status, error, now))) throw new LeaseLost();
      emit({ type: 'run.updated', run_id: run.run_id, status, step: state.step, at: now, error });
    },
    undefined,
    stopOf(status, error),
  );
  return error;
}
