/**
 * An agent's answer as the model streams it (`text_delta`, live-only events never stored), handed from
 * the turn this process started to the session's event streams open in this process, so a browser
 * following `/sessions/:session_id/events` sees the words as they arrive rather than after the turn.
 */
import type { SessionEvent } from '../../runtimes/agent/index.ts';

type Listener = (e: SessionEvent) => void;

const listeners = new Map<string, Set<Listener>>();

/** Passes a turn's live event to the session's open followers (stored events reach them from the store). */
export function publishLive(session_id: string, e: SessionEvent): void {
  if (e.id !== null) return;
  for (const l of listeners.get(session_id) ?? []) l(e);
}

/** Calls `listener` with each live event of the session until the returned function is called. */
export function subscribeLive(session_id: string, listener: Listener): () => void {
  const set = listeners.get(session_id) ?? new Set<Listener>();
  listeners.set(session_id, set);
  set.add(listener);
  return () => {
    set.delete(listener);
    if (set.size === 0) listeners.delete(session_id);
  };
}

/**
 * The session's stored events (`stored`) with its live events interleaved as they come, until
 * `signal` aborts or the stored events end.
 */
export async function* withLive(
  session_id: string,
  stored: AsyncIterable<SessionEvent>,
  signal: AbortSignal,
): AsyncGenerator<SessionEvent> {
  const queue: SessionEvent[] = [];
  let wake: (() => void) | null = null;
  let ended = false;
  let failure: unknown = null;
  const poke = () => {
    const w = wake;
    wake = null;
    w?.();
  };
  const off = subscribeLive(session_id, (e) => {
    queue.push(e);
    poke();
  });
  signal.addEventListener('abort', poke, { once: true });
  void (async () => {
    try {
      for await (const e of stored) {
        queue.push(e);
        poke();
      }
    } catch (err) {
      failure = err;
    } finally {
      ended = true;
      poke();
    }
  })();
  try {
    for (;;) {
      while (queue.length > 0) yield queue.shift()!;
      if (failure) throw failure;
      if (ended || signal.aborted) return;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
  } finally {
    off();
  }
}
