/**
 * The run loop: executes super-steps while this process holds the run's lease. Each step commits in
 * one transaction: a journal row with only what changed, new contracts and artifacts, and — when the
 * step suspends, reaches a terminal or fails — the run's new status. A heartbeat keeps the lease; if
 * it is lost, the loop stops without writing (the journal append is fenced by the lease).
 */

import { incidentLog } from '../../core/incident-log.ts';
import { warn } from '../../core/warn.ts';
import { STORE_BUSY, type TransactionOptions } from '../../store/store.ts';
import { insertContractStatement, updateContractStatement } from '../contracts/contract-store.ts';
import type { ContractView, NodeResult, RunError, RunOutcome, RunStatus, RunStop } from '../engine.ts';
import type { Emit, RunEvents } from '../events/run-events.ts';
import { type CompiledGraph, reachesTerminal } from '../graph/compile.ts';
import { encodeEntry, oneNodeText } from '../journal/codec.ts';
import type { StepEntry } from '../journal/entries.ts';
import {
  fencedAppendParams,
  fencedAppendSql,
  type LoadedRun,
  snapshotStatement,
} from '../journal/journal.ts';
import { jidOf } from '../journal/key.ts';
import { loadSchemas } from '../schemas.ts';
import { RunContracts, type RunRef } from './contracts-in-run.ts';
import { type EngineDeps, LeaseLost, leaseLost } from './deps.ts';
import { isPromiseLike, type NodeRun, runNode } from './node-runner.ts';
import { abandonLease, heartbeat, releaseRun, releaseRunStatement } from './runs.ts';
import { applyOneNode, applyStep, type RunState } from './state.ts';
import { type GraphPlan, graphPlan, nodePlan, nodeType } from './step-plan.ts';
import { collect, definedPairs, deltasOf, newStepWork, type StepWork } from './step-work.ts';
import { issueWrites, type StepWrite } from './step-writes.ts';

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
  const nodeRun: NodeRun = {
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
  };
  // The step loop reads `nodeRun.aborted`, a plain field: `signal.aborted` is a call into Node per read.
  const stop = () => {
    nodeRun.aborted = true;
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
  // What a participant writing with the run's end is told (CommitParticipant.stop), when one is.
  const stopOf = (status: RunStop['status'], error: RunError | null, work?: StepWork): RunStop | undefined =>
    events.stops
      ? { status, error, state: state.channels, contracts: work ? contractsAfter(rc, work) : rc.all() }
      : undefined;
  let stepped = false;
  try {
    for (;;) {
      if (nodeRun.aborted) throw new LeaseLost();
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
      const frontier = state.frontier;
      const work = newStepWork(frontier.length > 1);
      for (let i = 0; i < frontier.length; i++) {
        const entry = frontier[i]!;
        const np = nodePlan(plan, entry.node);
        const spec = np.spec;
        const type = nodeType(np, deps.registry);
        const ran = type ? runNode(nodeRun, entry, spec, type) : null;
        const result: NodeResult = ran
          ? isPromiseLike(ran)
            ? await ran
            : ran
          : {
              kind: 'fail',
              code: 'UNKNOWN_NODE_TYPE',
              message: `node type "${spec.type}" is not registered in this process`,
            };
        const schemas = result.kind === 'suspend' ? await loadSchemas() : undefined;
        const error =
          result.kind === 'fail'
            ? { code: result.code, message: result.message, node_id: spec.id }
            : collect(deps, plan, np, result, work, schemas, rc.byId);
        if (error) return outcome('failed', await finish(deps, events, run, state, stopOf, 'failed', error));
      }
      const committing = commitStep(deps, events, run, plan, state, work, stopOf);
      const status = typeof committing === 'string' ? committing : await committing;
      if (!work.plain) {
        for (let i = 0; i < work.contracts.length; i++) rc.put(work.contracts[i]!);
        for (let i = 0; i < work.moved.length; i++) rc.put(work.moved[i]!);
      }
      // Corrective context belongs to one execution; the next visit of a node starts at attempt 1.
      if (loaded.attempts.size > 0) loaded.attempts.clear();
      if (status !== 'running') return outcome(status);
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

/**
 * Commits the step and returns the run's status after it: synchronously when the store can (a step
 * of synchronous nodes then runs without a promise), otherwise through an awaited transaction.
 */
function commitStep(
  deps: EngineDeps,
  events: RunEvents,
  run: RunRef,
  plan: GraphPlan,
  state: RunState,
  work: StepWork,
  stopOf: StopOf,
): RunStatus | Promise<RunStatus> {
  const graph = plan.graph;
  const seq = state.seq + 1;
  const rp = work.route;
  let body: string;
  let terminal: boolean;
  if (work.deltas === null && rp !== null && work.plain) {
    // The usual step: one node, at most one route, nothing else. Its row and state come from what
    // `collect` indexed (the same row and state as below: a property test holds them to it).
    const r = work.result!;
    const pairs = work.pairs;
    body = oneNodeText(
      work.node!.ix,
      work.holes ? definedPairs(pairs!) : pairs,
      rp.ix,
      r.output,
      r.attachments,
    );
    applyOneNode(state, work.node!.id, r.output, r.attachments, pairs, plan.channels, rp.frontier);
    terminal = rp.terminal;
  } else {
    const deltas = deltasOf(work);
    const entry: StepEntry = { deltas };
    if (work.contracts.length > 0) entry.c = work.contracts.map((c) => c.contract_id);
    if (work.waiting.length > 0) entry.z = work.waiting.map((c) => c.contract_id);
    if (work.artifacts.length > 0) entry.f = work.artifacts.map((a) => a.artifact_id);
    body = encodeEntry(graph, entry);
    applyStep(graph, state, deltas);
    terminal = reachesTerminal(graph, state.frontier);
  }
  state.seq = seq;
  const status: RunStatus =
    !work.plain && work.waiting.length > 0 ? 'waiting' : terminal ? 'completed' : 'running';
  const now = deps.now();
  const writes = stepWrites(deps, run, graph, state, work, seq, body, status, now);
  // A step that leaves the run running and records nothing has no event to describe (emitStep
  // would emit none): it commits without asking whether the run is observed.
  const silent = status === 'running' && work.plain;
  if (status === 'running' && work.withNext) {
    // Committed with the run's next transaction (see NodeEffects.commitsWithNext).
    const step = state.step;
    events.carry({
      writes,
      landed: { sql: 'SELECT 1 AS x FROM engine_journal WHERE jid = ?', params: [jidOf(run.run_pk, seq)] },
      emit: silent ? null : (emit) => emitStep(emit, events, run, step, work, status, now),
    });
    return status;
  }
  // A step that leaves the run running need not wait for the disk (see MID_RUN_STEP).
  const durability = status === 'running' ? MID_RUN_STEP : undefined;
  // Read here, not while committing: nothing runs between the two (the commit is synchronous).
  // Unobserved (the usual case), the commit is its statements alone: no closure per step.
  const describe =
    !silent && events.observed
      ? (emit: Emit) => emitStep(emit, events, run, state.step, work, status, now)
      : null;
  // The run's end with a participant writing in it goes through a transaction it can join.
  const stop = status === 'completed' ? stopOf(status, null, work) : undefined;
  if (stop === undefined && events.commitSync(writes, describe, durability) !== STORE_BUSY) return status;
  return events
    .transaction(
      async (tx, emit) => {
        issueWrites(tx, writes);
        if (events.observed) emitStep(emit, events, run, state.step, work, status, now);
      },
      durability,
      stop,
    )
    .then(() => status);
}

type StopOf = (status: RunStop['status'], error: RunError | null, work?: StepWork) => RunStop | undefined;

/** The run's contracts as the step's commit leaves them (`rc` takes the step's after it committed). */
function contractsAfter(rc: RunContracts, work: StepWork): ContractView[] {
  if (work.plain || work.contracts.length + work.moved.length === 0) return rc.all();
  const byId = new Map(rc.byId);
  for (const c of work.contracts) byId.set(c.contract_id, c);
  for (const c of work.moved) byId.set(c.contract_id, c);
  return [...byId.values()];
}

/** The step's statements, in commit order: journal row (fenced), contracts, artifacts, release, snapshot. */
function stepWrites(
  deps: EngineDeps,
  run: RunRef,
  graph: CompiledGraph,
  state: RunState,
  work: StepWork,
  seq: number,
  body: string,
  status: RunStatus,
  now: number,
): StepWrite[] {
  const { store, owner } = deps;
  const writes: StepWrite[] = [
    {
      sql: fencedAppendSql(store.dialect),
      params: fencedAppendParams(run.run_pk, seq, body, owner),
      miss: leaseLost,
    },
  ];
  // Most steps create nothing: their lists are not looked at.
  if (!work.plain) addRecordWrites(writes, run, work, seq, now);
  if (status !== 'running')
    writes.push({ ...releaseRunStatement(run.run_pk, owner, status, null, now), miss: leaseLost });
  if (!graph.hasAppendChannel && state.step % deps.snapshotEvery === 0)
    writes.push({ ...snapshotStatement(graph, run.run_pk, state), miss: null });
  return writes;
}

/** The step's contract and artifact statements, in commit order (see stepWrites). */
function addRecordWrites(writes: StepWrite[], run: RunRef, work: StepWork, seq: number, now: number): void {
  for (const c of work.contracts) writes.push({ ...insertContractStatement(run.run_pk, c, now), miss: null });
  for (const c of work.moved) {
    const miss = () => new Error(`contract ${c.contract_id} was no longer PENDING when its step committed`);
    writes.push({ ...updateContractStatement(c, 'PENDING', now), miss });
  }
  for (const a of work.artifacts)
    writes.push({
      sql: 'INSERT INTO engine_artifacts (artifact_id, run_pk, node_id, seq, artifact_type, payload, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      params: [a.artifact_id, run.run_pk, a.node_id, seq, a.artifact_type, JSON.stringify(a.payload), now],
      miss: null,
    });
}

/**
 * A step that leaves the run running precedes no external call by itself (a call's RUNNING commit is
 * synchronous) and acknowledges nothing (the run's end, suspension or failure commits
 * synchronously), so it need not wait for a disk flush: PostgreSQL flushes WAL in order, so the next
 * synchronous commit makes it durable too. A database server crash before then loses only steps the
 * run re-executes when it is reclaimed — as after a crash of this process.
 */
const MID_RUN_STEP: TransactionOptions = { durability: 'deferred' };

/** The step's events, of the types someone observes. */
function emitStep(
  emit: Emit,
  events: RunEvents,
  run: RunRef,
  step: number,
  work: StepWork,
  status: RunStatus,
  at: number,
): void {
  if (work.contracts.length + work.moved.length > 0 && events.observes('contract.transitioned')) {
    // New contracts: every transition; moved ones: the PENDING → WAITING just made.
    const moves = [
      ...work.contracts.map((c) => ({ c, ts: c.transitions })),
      ...work.moved.map((c) => ({ c, ts: c.transitions.slice(-1) })),
    ];
    for (const { c, ts } of moves) {
      for (const t of ts) {
        emit({
          type: 'contract.transitioned',
          run_id: run.run_id,
          contract_id: c.contract_id,
          action_type: c.action_type,
          from: t.from,
          to: t.to,
          actor: t.actor,
          at: t.at,
        });
      }
    }
  }
  if (work.artifacts.length > 0 && events.observes('artifact.persisted'))
    for (const a of work.artifacts) {
      emit({
        type: 'artifact.persisted',
        run_id: run.run_id,
        node_id: a.node_id,
        step,
        artifact_id: a.artifact_id,
        artifact_type: a.artifact_type,
        artifact: a.payload,
        at,
      });
    }
  if (status !== 'running') emit({ type: 'run.updated', run_id: run.run_id, status, step, at });
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
