/**
 * Progressive persistence while a call runs: the first `progressed()` arms one timer, and when
 * it fires the plan's `progress` hook writes everything that arrived meanwhile in one
 * transaction. A call shorter than `PROGRESS_INTERVAL_MS` writes nothing extra; a long stream
 * costs one small transaction per interval, and a killed process loses at most one interval.
 */

import { type IncidentLog, incidentLog } from '../../core/incident-log.ts';
import type { Store } from '../../store/store.ts';
import type { Redactor } from '../redact.ts';
import { runAfter, type ScheduledCall } from '../shared-timer.ts';
import type { SourcePlan } from '../source.ts';

export const PROGRESS_INTERVAL_MS = 200;

export interface ProgressWriter {
  /**
   * `final` (the answer is complete): written at once, not at the interval, when the call already
   * wrote a batch — a long stream, where one more small write is cheap and the answer worth keeping.
   * A short call still writes nothing extra (its finish follows at once).
   */
  progressed(final?: boolean): void;
  /** Cancels a pending write and waits for one in flight: call before finishing the rows. */
  stop(): Promise<void>;
}

const STOPPED: Promise<void> = Promise.resolve();
const NONE: ProgressWriter = { progressed() {}, stop: () => STOPPED };

export function progressWriter(
  store: Store,
  plan: SourcePlan,
  redactor: Redactor,
  invocationId: string,
): ProgressWriter {
  const progress = plan.progress;
  if (!progress) return NONE;
  let timer: ScheduledCall | undefined;
  let writing: Promise<void> | null = null;
  let stopped = false;
  /** Batches started, and whether the final one was. */
  let batches = 0;
  let finalWritten = false;
  // A lost batch only means less is left behind if the process dies: the finish still writes the
  // whole stream. Said once per call, with the call it belongs to (made on the first failure).
  let failures: IncidentLog | undefined;
  const write = async () => {
    if (stopped) return;
    try {
      await store.transaction((tx) => progress(tx, redactor));
    } catch (err) {
      failures ??= incidentLog(`saving the partial result of source invocation ${invocationId}`);
      failures.fail(err);
    }
  };
  const writeSoon = () => {
    batches += 1;
    // One write at a time: a write still running delays the next until it is done.
    writing = (writing ?? Promise.resolve()).then(write);
  };
  return {
    progressed(final = false) {
      if (stopped) return;
      if (final && !finalWritten && batches > 0) {
        finalWritten = true;
        timer?.cancel();
        timer = undefined;
        writeSoon();
        return;
      }
      if (timer) return;
      // Not a timer of its own per call (see shared-timer.ts); it does not keep the process alive.
      timer = runAfter(
        PROGRESS_INTERVAL_MS,
        () => {
          timer = undefined;
          writeSoon();
        },
        false,
      );
    },
    stop() {
      stopped = true;
      timer?.cancel();
      timer = undefined;
      // A call shorter than the interval wrote nothing: no promise of its own to wait for.
      return writing ?? STOPPED;
    },
  };
}
