/** One abort signal per call combining the caller's cancellation and the source's timeout. */

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
  const timer =
    timeoutMs !== undefined && timeoutMs > 0
      ? setTimeout(() => {
          timedOut = true;
          controller.abort(new Error(`timed out after ${timeoutMs} ms`));
        }, timeoutMs)
      : undefined;
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    cancelled: () => cancelled,
    dispose() {
      if (timer) clearTimeout(timer);
      outer?.removeEventListener('abort', onAbort);
    },
  };
}
