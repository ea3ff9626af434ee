/**
 * Per-call deadlines on one process-wide timer. Nearly every call finishes before its deadline
 * (the call's timeout, the 200 ms progress write), so creating and clearing a Node timer for
 * each cost the traced path a few microseconds per timer per call; here a call only joins and
 * leaves a set, and the one timer is re-armed when it fires or when an earlier deadline arrives.
 */

export interface ScheduledCall {
  /** Drops the callback if it has not run yet. */
  cancel(): void;
}

interface Entry {
  due: number;
  fire: () => void;
  keepAlive: boolean;
}

const pending = new Set<Entry>();
let timer: NodeJS.Timeout | undefined;
let armedAt = Number.POSITIVE_INFINITY;
/** Pending entries that keep the process alive, as a ref'd Node timer of their own would. */
let keepAlives = 0;

// A Node timer fires on whole milliseconds of the loop's clock, up to one early on this one.
const EARLY_MS = 1;
// Node's longest timer; a later deadline is re-armed when this one fires.
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Runs `fire` once, `ms` milliseconds from now, unless cancelled first. `keepAlive`: the pending
 * callback keeps the process running (a ref'd timer); otherwise it does not (an unref'd one).
 */
export function runAfter(ms: number, fire: () => void, keepAlive: boolean): ScheduledCall {
  const entry: Entry = { due: performance.now() + ms, fire, keepAlive };
  pending.add(entry);
  if (keepAlive && ++keepAlives === 1) timer?.ref();
  if (entry.due < armedAt) arm(entry.due);
  return {
    cancel() {
      if (pending.delete(entry)) release(entry);
    },
  };
}

function release(entry: Entry): void {
  // The timer stays armed for a deadline no longer pending: it fires once, finds nothing, stops.
  if (entry.keepAlive && --keepAlives === 0) timer?.unref();
}

function arm(due: number): void {
  if (timer) clearTimeout(timer);
  armedAt = due;
  timer = setTimeout(tick, Math.min(MAX_TIMER_MS, Math.max(1, Math.ceil(due - performance.now()))));
  if (keepAlives === 0) timer.unref();
}

function tick(): void {
  timer = undefined;
  armedAt = Number.POSITIVE_INFINITY;
  const now = performance.now() + EARLY_MS;
  const due: Entry[] = [];
  let next = Number.POSITIVE_INFINITY;
  for (const e of pending) {
    if (e.due <= now) due.push(e);
    else if (e.due < next) next = e.due;
  }
  for (const e of due) {
    pending.delete(e);
    release(e);
  }
  if (next !== Number.POSITIVE_INFINITY) arm(next);
  for (const e of due) {
    try {
      e.fire();
    } catch (err) {
      // Reported as a throwing timer callback would be, without stranding the others.
      queueMicrotask(() => {
        throw err;
      });
    }
  }
}
