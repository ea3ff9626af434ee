/**
 * One super-step of a run (`runStep`): its nodes run, what they return is gathered (step-work.ts),
 * and the step commits in one transaction — a journal row with only what changed, new contracts and
 * artifacts, and, when the step suspends, reaches a terminal or fails, the run's new status. A step
 * of synchronous nodes on a store that commits synchronously runs without a promise.
 *
 * Apart from the run loop (execute-run.ts) so that loop stays small: a long run's loop is compiled
 * by V8 on stack replacement, whole, and what it inlines is what that compile costs every process
 * (and again whenever a run's end or an unseen node's result throws the compiled code away).
 */

import type { SchemaRegistry } from '../../core/schema-registry.ts';
import type { TransactionOptions } from '../../store/store.ts';
import { STORE_BUSY } from '../../store/store.ts';
import { insertContractStatement, updateContractStatement } from '../contracts/contract-store.ts';
import type { NodeResult, RunError, RunStatus, RunStop } from '../engine.ts';
import type { Emit, RunEvents } from '../events/run-events.ts';
import { type CompiledGraph, reachesTerminal } from '../graph/compile.ts';
import { encodeEntry, oneNodeText } from '../journal/codec.ts';
import type { StepEntry } from '../journal/entries.ts';
import { fencedAppendParams, fencedAppendSql, snapshotStatement } from '../journal/journal.ts';
import { jidOf } from '../journal/key.ts';
import { loadSchemas } from '../schemas.ts';
import type { RunRef } from './contracts-in-run.ts';
import { type EngineDeps, leaseLost } from './deps.ts';
import type { NodeRun } from './node-context.ts';
import { isPromiseLike, runNode } from './node-runner.ts';
import { releaseRunStatement } from './runs.ts';
import { applyOneNode, applyStep, type RunState } from './state.ts';
import { type GraphPlan, type NodePlan, nodePlan, nodeType } from './step-plan.ts';
import { collect, definedPairs, deltasOf, newStepWork, type StepWork } from './step-work.ts';
import { issueWrites, type StepWrite } from './step-writes.ts';

/** What the run's end with a participant writing in it is told (see CommitParticipant.stop). */
export type StopOf = (
  status: RunStop['status'],
  error: RunError | null,
  work?: StepWork,
) => RunStop | undefined;

/** A run as its steps run: what its nodes run with, the graph's plan, and its end's `RunStop`. */
export interface StepRun extends NodeRun {
  plan: GraphPlan;
  stopOf: StopOf;
}

/** The run's status after the step committed, or the error that fails the run (nothing committed). */
export type StepEnd = RunStatus | RunError;

/** Runs the step of the run's frontier and commits it; synchronously when every node and the store can. */
export function runStep(s: StepRun): StepEnd | Promise<StepEnd> {
  return nodesFrom(s, newStepWork(s.state.frontier.length > 1), 0);
}

/** The frontier's nodes from `from` on, then the commit. */
function nodesFrom(s: StepRun, work: StepWork, from: number): StepEnd | Promise<StepEnd> {
  const frontier = s.state.frontier;
  for (let i = from; i < frontier.length; i++) {
    const np = nodePlan(s.plan, frontier[i]!.node);
    const type = nodeType(np, s.deps.registry);
    const ran = type ? runNode(s, frontier[i]!, np.spec, type) : unknownType(np);
    // A promised result, or a suspension (whose contracts are checked against the schemas, loaded
    // once), continues in a promise.
    if (isPromiseLike(ran) || ran.kind === 'suspend') return awaited(s, work, i, np, ran);
    const error = gathered(s, work, np, ran, undefined);
    if (error) return error;
  }
  const committing = commitStep(s, work);
  return typeof committing === 'string'
    ? committed(s, work, committing)
    : committing.then((status) => committed(s, work, status));
}

/** The step from a node whose result is promised or suspends: its result awaited, then the rest. */
async function awaited(
  s: StepRun,
  work: StepWork,
  i: number,
  np: NodePlan,
  ran: NodeResult | PromiseLike<NodeResult>,
): Promise<StepEnd> {
  const result = await ran;
  const schemas = result.kind === 'suspend' ? await loadSchemas() : undefined;
  return gathered(s, work, np, result, schemas) ?? nodesFrom(s, work, i + 1);
}

function unknownType(np: NodePlan): NodeResult {
  return {
    kind: 'fail',
    code: 'UNKNOWN_NODE_TYPE',
    message: `node type "${np.spec.type}" is not registered in this process`,
  };
}

/** The node's result checked and added to the step; the error that fails the run, if any. */
function gathered(
  s: StepRun,
  work: StepWork,
  np: NodePlan,
  result: NodeResult,
  schemas: SchemaRegistry | undefined,
): RunError | null {
  return result.kind === 'fail'
    ? { code: result.code, message: result.message, node_id: np.spec.id }
    : collect(s.deps, s.plan, np, result, work, schemas, s.contracts.byId);
}

/** After the commit: the run's contracts take the step's, and its nodes' attempts start over. */
function committed(s: StepRun, work: StepWork, status: RunStatus): RunStatus {
  if (!work.plain) {
    for (let i = 0; i < work.contracts.length; i++) s.contracts.put(work.contracts[i]!);
    for (let i = 0; i < work.moved.length; i++) s.contracts.put(work.moved[i]!);
  }
  // Corrective context belongs to one execution; the next visit of a node starts at attempt 1.
  if (s.attempts.size > 0) s.attempts.clear();
  return status;
}

/**
 * Commits the step and returns the run's status after it: synchronously when the store can (a step
 * of synchronous nodes then runs without a promise), otherwise through an awaited transaction.
 */
function commitStep(s: StepRun, work: StepWork): RunStatus | Promise<RunStatus> {
  const { deps, events, run, plan, state, stopOf } = s;
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
