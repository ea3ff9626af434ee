/**
 * Runs one frontier node: builds its context, calls its executor, and retries model-content failures
 * (`retry_generation`) up to the node's `max_generation_attempts`, journaling each failed attempt so
 * the corrective context survives a crash. One lane: same node, same config, a new call each time.
 */
import { isNoemaError } from '../../core/errors.ts';
import type { CorrectiveNote, NodeContext, NodeResult, NodeSpec, NodeType } from '../engine.ts';
import type { AttemptEntry } from '../journal/entries.ts';
import { fencedAppendStatement } from '../journal/journal.ts';
import { LeaseLost, leaseLost } from './deps.ts';
import { type NodeRun, StepContext } from './node-context.ts';

export type { NodeRun } from './node-context.ts';

import { isStoreFault } from '../../store/index.ts';
import type { FrontierEntry } from './state.ts';

/**
 * The node's result. Synchronous (no promise, no turn of the microtask queue) while the node is: a
 * step of synchronous nodes reaches its commit without awaiting anything before it.
 */
export function runNode(
  r: NodeRun,
  entry: FrontierEntry,
  spec: NodeSpec,
  type: NodeType<never>,
): NodeResult | Promise<NodeResult> {
  // Most executions have no earlier attempt: they share one empty list (never mutated, see retryAfter).
  const earlier = r.attempts.size === 0 ? undefined : r.attempts.get(spec.id);
  const notes: readonly CorrectiveNote[] = earlier
    ? earlier.map((a) => ({ attempt: a.t, error: a.e, corrective: a.x }))
    : NO_NOTES;
  return attemptNode(r, entry, spec, type, notes);
}

const NO_NOTES: readonly CorrectiveNote[] = [];

/** One attempt of the node, then what its result asks for (another attempt after a journaled failure). */
function attemptNode(
  r: NodeRun,
  entry: FrontierEntry,
  spec: NodeSpec,
  type: NodeType<never>,
  notes: readonly CorrectiveNote[],
): NodeResult | Promise<NodeResult> {
  const attempt = notes.length + 1;
  // Timed when either end is observed: the finish reports the node's duration.
  const watch = r.events.observes('node.started') || r.events.observes('node.finished');
  let started = 0;
  if (watch) {
    const { deps, run, state } = r;
    started = deps.now();
    r.events.progress({
      type: 'node.started',
      run_id: run.run_id,
      node_id: spec.id,
      node_type: spec.type,
      step: state.step + 1,
      attempt,
      at: started,
    });
  }
  r.contracts.fault = undefined;
  let returned: NodeResult | PromiseLike<NodeResult>;
  try {
    returned = type.execute(new StepContext(r, entry, spec, attempt, notes) as unknown as NodeContext<never>);
  } catch (err) {
    return attempted(r, entry, spec, type, notes, watch, started, failureOf(r, err));
  }
  // A synchronous node's result is used as is: no extra turn of the microtask queue per step.
  if (!isPromiseLike(returned)) return attempted(r, entry, spec, type, notes, watch, started, returned);
  return settled(r, entry, spec, type, notes, watch, started, returned);
}

// Apart from attemptNode: closures there would cost every synchronous node a context allocation.
function settled(
  r: NodeRun,
  entry: FrontierEntry,
  spec: NodeSpec,
  type: NodeType<never>,
  notes: readonly CorrectiveNote[],
  watch: boolean,
  started: number,
  returned: PromiseLike<NodeResult>,
): Promise<NodeResult> {
  return Promise.resolve(returned).then(
    (result) => attempted(r, entry, spec, type, notes, watch, started, result),
    (err: unknown) => attempted(r, entry, spec, type, notes, watch, started, failureOf(r, err)),
  );
}

/** What a throwing node amounts to: the run's failure, or (lease lost, store fault) the step's end. */
function failureOf(r: NodeRun, err: unknown): NodeResult {
  if (err instanceof LeaseLost || r.aborted) throw new LeaseLost();
  // A store fault is not the node's failure: the run stops here and is reclaimed.
  if (isStoreFault(err)) throw err;
  if (r.contracts.fault !== undefined) throw r.contracts.fault;
  const e = err as { code?: unknown; message?: string };
  return {
    kind: 'fail',
    code: isNoemaError(err) ? err.code : 'NODE_FAILED',
    message: e.message ?? String(err),
  };
}

function attempted(
  r: NodeRun,
  entry: FrontierEntry,
  spec: NodeSpec,
  type: NodeType<never>,
  notes: readonly CorrectiveNote[],
  watch: boolean,
  started: number,
  result: NodeResult,
): NodeResult | Promise<NodeResult> {
  if (r.aborted) throw new LeaseLost();
  // The node swallowed a store fault of `ctx.act`/`ctx.perform`: its result rests on a write that
  // never happened, so it is not used.
  if (r.contracts.fault !== undefined) throw r.contracts.fault;
  const attempt = notes.length + 1;
  // Finished is reported when started was (a subscriber arriving mid-node hears the next attempt).
  if (watch) {
    const { deps, run, state } = r;
    r.events.progress({
      type: 'node.finished',
      run_id: run.run_id,
      node_id: spec.id,
      node_type: spec.type,
      step: state.step + 1,
      attempt,
      status: result.kind,
      duration_ms: deps.now() - started,
      ...(result.kind === 'fail'
        ? { error: result.message }
        : result.kind === 'retry_generation'
          ? { error: result.error }
          : {}),
      at: deps.now(),
    });
  }
  if (result.kind !== 'retry_generation') return result;
  return retryAfter(r, entry, spec, type, notes, result);
}

/** Journals a failed generation attempt, then runs the next one, or fails after the last. */
async function retryAfter(
  r: NodeRun,
  entry: FrontierEntry,
  spec: NodeSpec,
  type: NodeType<never>,
  notes: readonly CorrectiveNote[],
  result: Extract<NodeResult, { kind: 'retry_generation' }>,
): Promise<NodeResult> {
  const attempt = notes.length + 1;
  await journalAttempt(r, { k: 'g', n: spec.id, t: attempt, e: result.error, x: result.corrective });
  // A new list: `notes` may be the shared empty one.
  const next = [...notes, { attempt, error: result.error, corrective: result.corrective }];
  if (attempt >= (spec.max_generation_attempts ?? 1)) {
    return {
      kind: 'fail',
      code: 'GENERATION_FAILED',
      message: `node ${spec.id} produced no acceptable output in ${attempt} attempt(s): ${result.error}`,
    };
  }
  return attemptNode(r, entry, spec, type, next);
}

export function isPromiseLike<T>(v: T | PromiseLike<T>): v is PromiseLike<T> {
  return typeof v === 'object' && v !== null && typeof (v as { then?: unknown }).then === 'function';
}

async function journalAttempt(r: NodeRun, entry: AttemptEntry): Promise<void> {
  const { store, owner } = r.deps;
  const seq = r.state.seq + 1;
  await r.events.transaction(async (tx) => {
    const { sql, params } = fencedAppendStatement(
      store.dialect,
      r.run.run_pk,
      seq,
      JSON.stringify(entry),
      owner,
    );
    tx.writeOne(sql, params, leaseLost);
  });
  r.state.seq = seq;
  r.attempts.set(entry.n, [...(r.attempts.get(entry.n) ?? []), entry]);
}
