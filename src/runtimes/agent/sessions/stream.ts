/**
 * Session events as async streams, for SSE and similar surfaces: `streamTurn` starts a message or
 * an ECS continuation and yields its events live (a refusal — bad input, SESSION_BUSY — rejects
 * before the first event, so a surface can still answer it as a plain error); `tailEvents` replays
 * the stored events after a Last-Event-ID and follows the session's turns (in any process) until
 * the caller aborts or the wait bound passes.
 */
import type { Store } from '../../../store/store.ts';
import type { TurnResult } from './drive.ts';
import { listenForSessionEvents, listSessionEvents, onSessionEvents, type SessionEvent } from './events.ts';

export interface TurnStream {
  events: AsyncIterable<SessionEvent>;
  /** Settles when the turn stops (the stream then ends). */
  result: Promise<TurnResult>;
}

/**
 * Runs `start` (a sendMessage or continueEcs bound to an event callback). Resolves once the turn
 * has produced its first event; rejects if `start` fails before that.
 */
export function streamTurn(
  start: (onEvent: (e: SessionEvent) => void) => Promise<TurnResult>,
): Promise<TurnStream> {
  const queue: SessionEvent[] = [];
  let wake: (() => void) | null = null;
  let finished = false;
  return new Promise((resolve, reject) => {
    let started = false;
    const result = start((e) => {
      queue.push(e);
      wake?.();
      if (!started) {
        started = true;
        resolve({ events: iterate(), result });
      }
    });
    result.then(
      () => {
        finished = true;
        wake?.();
      },
      (err) => {
        finished = true;
        wake?.();
        if (!started) reject(err);
      },
    );
    async function* iterate(): AsyncGenerator<SessionEvent> {
      for (;;) {
        while (queue.length > 0) yield queue.shift()!;
        // An error after the stream began was recorded as an `error` event, the stream's last.
        if (finished) return;
        await new Promise<void>((r) => {
          wake = r;
        });
        wake = null;
      }
    }
  });
}

export interface TailOptions {
  /** Last-Event-ID: yield events after this id. */
  after?: number;
  /** Ends the stream (a sleeping poll wakes at once). */
  signal?: AbortSignal;
  /**
   * Poll interval for events stored by another process (default 100 ms), while events came in the
   * last `IDLE_AFTER_MS`; then `idlePollMs` (default 1 s). Events this process writes, or another
   * process writes on a store with notifications, wake the follower at once.
   */
  pollMs?: number;
  idlePollMs?: number;
  /**
   * Stop following after this long (default 10 minutes): a client reconnects with Last-Event-ID, as
   * EventSource does.
   */
  maxWaitMs?: number;
}

/** A follower polls at `pollMs` until no event came for this long, then at `idlePollMs`. */
const IDLE_AFTER_MS = 5_000;

/** Waits `ms`, or less when `signal` aborts or this process writes events of the session. */
function pause(ms: number, session_id: string, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      off();
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    const off = onSessionEvents(session_id, done);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/**
 * Replays stored events after `after`, then follows the session — this turn, and every later one
 * (idle or not, a follower sees each turn that starts after it connected) — until the caller
 * aborts or `maxWaitMs` passes. Events are read from the store, so a turn running in any process
 * is followed.
 */
export async function* tailEvents(
  store: Store,
  session_id: string,
  options: TailOptions = {},
): AsyncGenerator<SessionEvent> {
  let after = options.after ?? 0;
  await listenForSessionEvents(store);
  const deadline = Date.now() + (options.maxWaitMs ?? 600_000);
  let lastEventAt = Date.now();
  for (;;) {
    if (options.signal?.aborted) return;
    const batch = await listSessionEvents(store, session_id, after, 500);
    if (batch.length > 0) lastEventAt = Date.now();
    for (const e of batch) {
      after = e.id;
      yield e;
    }
    if (batch.length === 500) continue;
    if (options.signal?.aborted || Date.now() > deadline) return;
    const idle = Date.now() - lastEventAt > IDLE_AFTER_MS;
    await pause(idle ? (options.idlePollMs ?? 1_000) : (options.pollMs ?? 100), session_id, options.signal);
  }
}
