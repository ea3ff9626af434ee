/**
 * Session events as async streams, for SSE and similar surfaces: `streamTurn` starts a message or
 * an ECS continuation and yields its events live (a refusal — bad input, SESSION_BUSY — rejects
 * before the first event, so a surface can still answer it as a plain error); `tailEvents` replays
 * the stored events after a Last-Event-ID and follows the session (in any process) until the turn
 * ends, the caller aborts, or the wait bound passes.
 */
import type { Store } from '../../../store/store.ts';
import type { TurnResult } from './drive.ts';
import { listSessionEvents, type SessionEvent } from './events.ts';
import { findSession } from './session-store.ts';

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

/** Events that close a turn. */
const CLOSING = new Set(['done', 'ecs', 'error']);

export interface TailOptions {
  /** Last-Event-ID: yield events after this id. */
  after?: number;
  signal?: AbortSignal;
  /** Poll interval while the session runs elsewhere (default 100 ms). */
  pollMs?: number;
  /** Stop following after this long (default 10 minutes). */
  maxWaitMs?: number;
}

/** Replays stored events after `after`, then follows a running session until its turn ends. */
export async function* tailEvents(
  store: Store,
  session_id: string,
  options: TailOptions = {},
): AsyncGenerator<SessionEvent> {
  let after = options.after ?? 0;
  let lastEvent: string | null = null;
  let settle = 0;
  const deadline = Date.now() + (options.maxWaitMs ?? 600_000);
  for (;;) {
    const batch = await listSessionEvents(store, session_id, after, 500);
    for (const e of batch) {
      after = e.id;
      lastEvent = e.event;
      yield e;
    }
    if (batch.length === 500) continue;
    // Follow while a turn is in flight. Its status changes just before its closing event (done,
    // ecs, error) is stored, so once it stopped running, wait (boundedly) for that event.
    const s = await findSession(store, session_id);
    if (!s) return;
    if (s.status !== 'running') {
      if (lastEvent === null || CLOSING.has(lastEvent) || ++settle > 20) return;
    }
    if (options.signal?.aborted || Date.now() > deadline) return;
    await new Promise((r) => setTimeout(r, options.pollMs ?? 100));
  }
}
