/**
 * A `text/event-stream` Response over an async stream of ready SSE frames, with a heartbeat comment
 * so proxies keep the connection; a client that goes away stops the reading (the work it started,
 * such as an agent turn, still finishes and stays replayable).
 */
export function sseResponse(
  frames: AsyncIterable<string>,
  signal: AbortSignal,
  heartbeatMs = 15_000,
): Response {
  const encoder = new TextEncoder();
  const it = frames[Symbol.asyncIterator]();
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  let closed = false;
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode('retry: 2000\n: connected\n\n'));
      heartbeat = setInterval(() => {
        if (!closed) controller.enqueue(encoder.encode(': heartbeat\n\n'));
      }, heartbeatMs);
      heartbeat.unref();
      signal.addEventListener(
        'abort',
        () => {
          if (closed) return;
          closed = true;
          clearInterval(heartbeat);
          void it.return?.();
          try {
            controller.close();
          } catch {
            // Already closed.
          }
        },
        { once: true },
      );
    },
    async pull(controller) {
      if (closed) return;
      try {
        const next = await it.next();
        if (closed) return;
        if (next.done) {
          closed = true;
          clearInterval(heartbeat);
          controller.close();
        } else controller.enqueue(encoder.encode(next.value));
      } catch (err) {
        closed = true;
        clearInterval(heartbeat);
        controller.error(err);
      }
    },
    cancel() {
      closed = true;
      clearInterval(heartbeat);
      void it.return?.();
    },
  });
  return new Response(stream, {
    headers: {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    },
  });
}
