/**
 * A `text/event-stream` Response over an async stream of ready SSE frames (a runtime's own stream,
 * e.g. an agent turn), with `retry:` up front and a heartbeat comment so proxies keep the
 * connection. It ends when the frames end, the client leaves, or its owner ends it (server
 * shutdown, through `track`); then the producer is `return()`ed at its next yield (an async
 * generator cannot be interrupted mid-await), and the work it started still finishes and stays
 * replayable.
 */

export const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
};

export interface FrameStreamOptions {
  heartbeatMs?: number;
  /** Client reconnection delay announced with `retry:`. */
  retryMs?: number;
  /** Hands `end` to the stream's owner (to close it on shutdown); returns the un-registration. */
  track?: (end: () => void) => () => void;
}

export function sseResponse(
  frames: AsyncIterable<string>,
  signal: AbortSignal,
  options: FrameStreamOptions = {},
): Response {
  const encoder = new TextEncoder();
  const iterator = frames[Symbol.asyncIterator]();
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  let untrack = () => {};
  let closed = false;
  // Marks the stream finished; true when this call is the one that finished it.
  const finish = (): boolean => {
    if (closed) return false;
    closed = true;
    clearInterval(heartbeat);
    untrack();
    return true;
  };
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      const end = () => {
        if (!finish()) return;
        void iterator.return?.();
        try {
          controller.close();
        } catch {
          // Already closed by the client.
        }
      };
      untrack = options.track?.(end) ?? untrack;
      signal.addEventListener('abort', end, { once: true });
      controller.enqueue(encoder.encode(`retry: ${options.retryMs ?? 2_000}\n: connected\n\n`));
      heartbeat = setInterval(() => {
        if (!closed) controller.enqueue(encoder.encode(': heartbeat\n\n'));
      }, options.heartbeatMs ?? 15_000);
      heartbeat.unref();
    },
    async pull(controller) {
      if (closed) return;
      try {
        const next = await iterator.next();
        if (closed) return;
        if (!next.done) controller.enqueue(encoder.encode(next.value));
        else if (finish()) controller.close();
      } catch (err) {
        if (finish()) controller.error(err);
      }
    },
    cancel() {
      if (finish()) void iterator.return?.();
    },
  });
  return new Response(stream, { headers: SSE_HEADERS });
}
