/**
 * A turn executed by another process (this process's engine executes nothing, `noema serve --no-work`):
 * the run is left to whichever worker claims it, which records the turn's events and closes it; here
 * its stored events are relayed to the caller's stream in order, each once, until the turn's closing
 * event (`done`, `error` or `ecs`). Live-only events (`text_delta`) stay in the executing process.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { RunOutcome } from '../../../engine/index.ts';
import { FaultPatience } from '../../../store/index.ts';
import type { AgentContext } from '../context.ts';
import type { ExecutionCore } from '../nodes/deps.ts';
import { executionStateOf } from '../nodes/reasoning.ts';
import type { ChatMessage, Notification } from '../state/execution-state.ts';
import { listenForSessionEvents, listSessionEvents, onSessionEvents } from './events.ts';
import type { SessionEventRecorder } from './recorder.ts';
import type { SessionRow } from './session-store.ts';

/**
 * How often the stored events of a turn executed elsewhere are read at least (also at each of its
 * run's events and each commit of the session's events, where the store notifies).
 */
const RELAY_POLL_MS = 100;
const CLOSING = new Set(['done', 'error', 'ecs']);

/** Relays the session's stored events after the last delivered one; true when the turn's closing was among them. */
export async function relayStored(
  cx: AgentContext,
  session_id: string,
  run_id: string,
  rec: SessionEventRecorder,
): Promise<boolean> {
  let closed = false;
  for (;;) {
    const events = await listSessionEvents(cx.store, session_id, rec.lastDelivered);
    for (const e of events) {
      rec.relay(e);
      if (e.data.run_id === run_id && CLOSING.has(e.event)) closed = true;
    }
    if (events.length < 500) return closed;
  }
}

export type Followed =
  | {
      closed: true;
      result: {
        session_id: string;
        run_id: string;
        status: 'idle' | 'waiting';
        outcome: RunOutcome;
        response: string | null;
      };
    }
  | { closed: false; outcome: RunOutcome };

/**
 * Waits for the run to stop elsewhere (`step`), relaying its stored events meanwhile, then for the
 * turn's closing from the process that executed it (up to the claim lease). `closed: false`: the caller closes.
 */
export async function followElsewhere(
  cx: AgentContext,
  session: SessionRow,
  run_id: string,
  step: () => Promise<RunOutcome>,
  rec: SessionEventRecorder,
): Promise<Followed> {
  await rec.flush();
  let wake = () => {};
  // Woken by the run's events and by each commit of the session's events in the executing process.
  await listenForSessionEvents(cx.store);
  const unfollow = onSessionEvents(session.session_id, () => wake());
  const unsubscribe = await cx.engine.subscribe(run_id, () => wake()).catch(() => null);
  let outcome: RunOutcome | null = null;
  let stoppedAt = 0;
  let failure: { err: unknown } | null = null;
  const stopped = step().then(
    (o) => {
      outcome = o;
      stoppedAt = Date.now();
      wake();
    },
    (err: unknown) => {
      failure = { err };
      wake();
    },
  );
  let closed = false;
  // A read of the stored events the store refuses for a moment is tried again at the next poll, as
  // long as the process executing the turn could still hold its claim: the turn goes on there.
  const patience = new FaultPatience(cx.claimLeaseMs);
  try {
    for (;;) {
      try {
        closed = await relayStored(cx, session.session_id, run_id, rec);
        patience.succeeded();
      } catch (err) {
        patience.forgive(err);
      }
      if (closed) break;
      if (failure) throw (failure as { err: unknown }).err;
      // Past a claim's lease after the run stopped, the process that executed it failed to close the
      // turn: this process closes it, as any racing closer may.
      if (stoppedAt > 0 && Date.now() - stoppedAt > cx.claimLeaseMs) break;
      await Promise.race([
        sleep(RELAY_POLL_MS),
        new Promise<void>((resolve) => {
          wake = resolve;
        }),
      ]);
    }
    await stopped;
  } finally {
    unfollow();
    await unsubscribe?.().catch(() => {});
  }
  const final = outcome as unknown as RunOutcome;
  if (!closed) return { closed: false, outcome: final };
  let response: string | null = null;
  if (final.status === 'completed') {
    const run = await readRun(cx, run_id, patience);
    response = executionStateOf(
      run.state.execution as unknown as ExecutionCore,
      (run.state.messages ?? []) as unknown as ChatMessage[],
      (run.state.notifications ?? []) as unknown as Notification[],
      run.contracts,
    ).response;
  }
  return {
    closed: true,
    result: {
      session_id: session.session_id,
      run_id,
      status: final.status === 'waiting' ? 'waiting' : 'idle',
      outcome: final,
      response,
    },
  };
}

/** The stopped run's view, a read the store refuses for a moment tried again as the relay's are. */
async function readRun(cx: AgentContext, run_id: string, patience: FaultPatience) {
  for (;;) {
    try {
      return await cx.engine.getRun(run_id);
    } catch (err) {
      patience.forgive(err);
    }
    await sleep(RELAY_POLL_MS);
  }
}
