/**
 * Drives one agent run until it stops in this process — started, continued after an ECS answer —
 * and settles the session: `completed` stores the answer in the dialogue, frees the session and
 * queues the background profile update (after `done`, never before); `waiting` writes the
 * `graph_checkpoints` row (seed 000) and emits `ecs`; `failed` frees the session and emits `error`.
 * A run executed here that completes or fails is settled in the transaction that ends it
 * (`SessionEventRecorder.closeWithRun`); any other stop, after it.
 */
import type { Json, RunOutcome, RunView } from '../../../engine/index.ts';
import type { Transaction } from '../../../store/store.ts';
import type { AgentContext } from '../context.ts';
import { getAgent } from '../definition.ts';
import type { ExecutionCore } from '../nodes/deps.ts';
import { executionStateOf } from '../nodes/reasoning.ts';
import { queueProfileUpdate } from '../profiles/synthesizer.ts';
import type { ChatMessage, ExecutionState, Notification } from '../state/execution-state.ts';
import { deleteCheckpoint, deleteRunCheckpoint, writeCheckpoint } from './checkpoints.ts';
import { followElsewhere, relayStored } from './follow.ts';
import type { AddEvent, Issued, SessionEventRecorder } from './recorder.ts';
import { appendMessage, closeTurn, type SessionRow, type SessionStatus } from './session-store.ts';

export interface TurnResult {
  session_id: string;
  run_id: string;
  /** `running`: only when recovering a turn another live process still holds (nothing changed). */
  status: 'idle' | 'waiting' | 'running';
  outcome: RunOutcome;
  response: string | null;
}

export function executionStateOfRun(run: Pick<RunView, 'state' | 'contracts'>): ExecutionState {
  return executionStateOf(
    run.state.execution as unknown as ExecutionCore,
    (run.state.messages ?? []) as unknown as ChatMessage[],
    (run.state.notifications ?? []) as unknown as Notification[],
    run.contracts,
  );
}

export interface DriveOptions {
  /** The ECS contract answered by this continuation, whose checkpoint goes once it resumed. */
  answered?: string;
  /** Taking over a turn whose process died: a live owner keeps the turn. */
  recovering?: boolean;
}

/** Drives the run with `rec` recording its events (the caller recorded the opening event). */
export async function driveRun(
  cx: AgentContext,
  session: SessionRow,
  run_id: string,
  step: () => Promise<RunOutcome>,
  rec: SessionEventRecorder,
  options: DriveOptions = {},
): Promise<TurnResult> {
  cx.driving.add(run_id);
  cx.recorders.set(run_id, rec);
  try {
    return await drive(cx, session, run_id, step, rec, options.answered);
  } finally {
    cx.recorders.delete(run_id);
    cx.driving.delete(run_id);
  }
}

/** Thrown inside a closing transaction that is not the turn's one: rolls it back. */
class ClosedElsewhere extends Error {}

/**
 * The turn's closing transaction: `running → status` (closeTurn, the transaction's first write, so a
 * racing closer waits on it and then finds nothing to close) with `write`'s transcript and closing
 * events. False when another driver closed the turn first: nothing of `write` is written, and only
 * the progress events this driver had queued are stored (after that closing).
 */
async function closeWith(
  rec: SessionEventRecorder,
  session: SessionRow,
  run_id: string,
  status: Exclude<SessionStatus, 'running'>,
  reasoning: { turnDone: boolean; context?: unknown },
  write: Parameters<SessionEventRecorder['commitWith']>[0],
  /** Relays what the closer elsewhere recorded (a turn executed by another process). */
  elsewhere?: () => Promise<void>,
): Promise<boolean> {
  try {
    await rec.commitWith(async (tx, add, issued) => {
      // Issued first and checked once the closing's writes and events are issued too (one round trip
      // where the store pipelines): not closed here, they all roll back.
      issued(
        closeTurn(
          tx,
          session.session_id,
          run_id,
          session,
          status,
          reasoning.turnDone,
          reasoning.context ?? null,
        ).then((closed) => {
          if (!closed) throw new ClosedElsewhere();
        }),
      );
      return write(tx, add, issued);
    });
    return true;
  } catch (err) {
    if (!(err instanceof ClosedElsewhere)) throw err;
    await rec.flush().catch(() => {});
    await elsewhere?.().catch(() => {});
    return false;
  }
}

async function drive(
  cx: AgentContext,
  session: SessionRow,
  run_id: string,
  step: () => Promise<RunOutcome>,
  rec: SessionEventRecorder,
  answered?: string,
): Promise<TurnResult> {
  const { engine } = cx;
  // Executed and closed by the process that claims it (this engine executes none): its stored events
  // are relayed here; a turn that process did not close is closed here, as by any racing closer.
  let followed: RunOutcome | null = null;
  if (!engine.executes) {
    const f = await followElsewhere(cx, session, run_id, step, rec);
    if (f.closed) return f.result;
    followed = f.outcome;
  }
  const elsewhere = engine.executes
    ? undefined
    : () => relayStored(cx, session.session_id, run_id, rec).then(() => {});
  // Executed here: the events the run's nodes report commit with the run's own transactions, and a
  // run that completes or fails closes the turn in the transaction that ends it (one commit that waits
  // for the disk, not two).
  if (engine.executes)
    rec.closeWithRun(async (tx, stop, add, issued): Promise<ClosedWithRun | undefined> => {
      let c: Closing;
      try {
        c = closingOf(session, run_id, stop, stop.status, stop.error, answered);
      } catch {
        return undefined; // left to the closing after the run (which reports what is wrong)
      }
      // Awaited, not issued: the run's end must commit whatever it answers (a turn another driver
      // closed gets nothing more of this one's).
      const closed = await closeTurn(tx, session.session_id, run_id, session, 'idle', c.turnDone, c.context);
      if (closed) await c.write(tx, add, issued);
      return { closed, response: c.response, execution: c.execution };
    });
  const unsubscribe = await engine.subscribe(
    run_id,
    (e) => rec.fromEngine(e),
    engine.executes ? { commitWith: rec.participant } : {},
  );
  let outcome: RunOutcome;
  try {
    outcome = followed ?? (await step());
  } catch (err) {
    await unsubscribe();
    await rec.flush().catch(() => {});
    const e = err as { code?: string; message?: string };
    await closeWith(
      rec,
      session,
      run_id,
      'idle',
      { turnDone: false },
      async (_tx, add) => {
        await add('error', { code: e.code ?? 'INTERNAL', message: e.message ?? String(err) });
      },
      elsewhere,
    );
    throw err;
  }
  await unsubscribe();
  const atEnd = rec.closedWithRun<ClosedWithRun>();
  if (atEnd !== null) {
    const { closed, response, execution } = atEnd.report;
    if (closed && outcome.status === 'completed') await queueProfile(cx, session, execution);
    return { session_id: session.session_id, run_id, status: 'idle', outcome, response };
  }
  if (outcome.status === 'running' || outcome.status === 'queued') {
    await rec.flush();
    return { session_id: session.session_id, run_id, status: 'running', outcome, response: null };
  }

  // The run's end as this process left it, when it executed the run; read back otherwise (and for
  // the checkpoint, which stores the whole GraphState).
  const view = outcome.status === 'waiting' || !outcome.final ? await engine.getRun(run_id) : null;
  const run = view ?? outcome.final!;
  // The turn closes in one transaction: transcript, session status and the closing events.
  if (view && outcome.status === 'waiting') {
    const execution = executionStateOfRun(run);
    const waiting = outcome.waiting[0]!;
    const form = (waiting.payload as { form?: Json }).form ?? null;
    await closeWith(
      rec,
      session,
      run_id,
      'waiting',
      { turnDone: false },
      async (tx, add) => {
        if (answered) await deleteCheckpoint(tx, session.session_id, answered);
        await writeCheckpoint(tx, session.session_id, view, waiting.contract_id);
        await add('execution_state', execution as unknown as Record<string, unknown>);
        await add('ecs', { contract_id: waiting.contract_id, status: waiting.status, form });
      },
      elsewhere,
    );
    return { session_id: session.session_id, run_id, status: 'waiting', outcome, response: null };
  }
  const c = closingOf(
    session,
    run_id,
    run,
    outcome.status === 'completed' ? 'completed' : 'failed',
    outcome.error ?? { code: `RUN_${outcome.status.toUpperCase()}`, message: `run ${outcome.status}` },
    answered,
  );
  const closed = await closeWith(
    rec,
    session,
    run_id,
    'idle',
    { turnDone: c.turnDone, context: c.context },
    c.write,
    elsewhere,
  );
  // The profile update follows the turn's one closing (its closer queues it).
  if (closed && outcome.status === 'completed') await queueProfile(cx, session, c.execution);
  return { session_id: session.session_id, run_id, status: 'idle', outcome, response: c.response };
}

/** What the closing written with the run's end reports (SessionEventRecorder.closedWithRun). */
interface ClosedWithRun {
  closed: boolean;
  response: string | null;
  execution: ExecutionState;
}

type Closing = ReturnType<typeof closingOf>;

/**
 * The closing of a turn whose run completed or failed: the session's reasoning, the answer in the
 * dialogue and the closing events (`execution_state`, then `done` or `error`).
 */
function closingOf(
  session: SessionRow,
  run_id: string,
  run: Pick<RunView, 'state' | 'contracts'>,
  status: 'completed' | 'failed',
  error: { code: string; message: string; node_id?: string | null } | null,
  /** The ECS contract this continuation answered: its run's checkpoint goes. */
  answered: string | undefined,
) {
  const execution = executionStateOfRun(run);
  // A checkpoint is written only for a run waiting on an ECS form (its ecs_request contract): a run
  // that never asked for one has none to delete.
  const checkpointed = answered !== undefined || run.contracts.some((c) => c.action_type === 'ecs_request');
  const completed = status === 'completed';
  const write = async (tx: Transaction, add: AddEvent, issued: Issued): Promise<void> => {
    // Issued together with the events after them (one round trip where the store pipelines).
    if (checkpointed) issued(deleteRunCheckpoint(tx, session.session_id, run_id));
    if (completed && execution.response)
      issued(
        appendMessage(tx, session.session_id, run_id, { role: 'assistant', content: execution.response }),
      );
    await add('execution_state', execution as unknown as Record<string, unknown>);
    if (completed)
      await add('done', {
        response: execution.response,
        stop_reason: execution.stop_reason,
        iterations: execution.iteration,
        mode: execution.effective_mode,
      });
    else
      await add('error', {
        code: error?.code ?? 'RUN_FAILED',
        message: error?.message ?? 'run failed',
        node_id: error?.node_id ?? null,
      });
  };
  return {
    execution,
    turnDone: completed,
    context: run.state.reasoning ?? null,
    response: completed ? execution.response : null,
    write,
  };
}

/** Queues the background profile update of a completed turn, when the agent synthesizes profiles. */
async function queueProfile(cx: AgentContext, session: SessionRow, execution: ExecutionState): Promise<void> {
  const def = await getAgent(cx.store, session.agent_hash);
  if (def.synthesis.enabled) await queueProfileUpdate(cx, session, execution);
}
