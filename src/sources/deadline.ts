/** One abort signal per call combining the caller's cancellation and the source's timeout. */
import { runAfter } from './shared-timer.ts';

export interface CallDeadline {
  signal: AbortSignal;
  timedOut(): boolean;
  cancelled(): boolean;
  dispose(): void;
}

export function callDeadline(outer: AbortSignal | undefined, timeoutMs: number | undefined): CallDeadline {
  const controller = new AbortController();
  let timedOut = false;
  let cancelled = false;
  const onAbort = () => {
    cancelled = true;
    controller.abort(outer?.reason ?? new Error('cancelled'));
  };
  if (outer?.aborted) onAbort();
  else outer?.addEventListener('abort', onAbort, { once: true });
  // A pending deadline keeps the process alive, as the call it bounds would.
  const timer =
    timeoutMs !== undefined && timeoutMs > 0
      ? runAfter(
          timeoutMs,
          () => {
            timedOut = true;
            controller.abort(new Error(`timed out after ${timeoutMs} ms`));
          },
          true,
        )
      : undefined;
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    cancelled: () => cancelled,
    dispose() {
      timer?.cancel();
      outer?.removeEventListener('abort', onAbort);
    },
  };
}
