/**
 * Server-Sent Events over a run feed: `id:` is the event's stream id, `event:` its type, `data:` the
 * event as JSON; `resync` (no id) says "refetch the run"; a comment line every `heartbeatMs` keeps
 * proxies and clients from timing out; `close()` ends every open stream cleanly (shutdown).
 */
import { SSE_HEADERS, sseResponse } from '../sse-frames.ts';
import type { FeedSink, ResyncInfo, RunFeeds, StreamEvent } from './feed.ts';

export interface SseOptions {
  heartbeatMs?: number;
  /** Client reconnection delay announced with `retry:`. */
  retryMs?: number;
}

export class SseStreams {
  readonly #open = new Set<() => void>();
  readonly #heartbeatMs: number;
  readonly #retryMs: number;

  constructor(options: SseOptions = {}) {
    this.#heartbeatMs = options.heartbeatMs ?? 15_000;
    this.#retryMs = options.retryMs ?? 2_000;
  }

  /** How many streams are open now. */
  get openStreams(): number {
    return this.#open.size;
  }

  /** A `text/event-stream` response for one run, resuming after `lastEventId` when given. */
  async respond(
    feeds: Pick<RunFeeds, 'join'>,
    run_id: string,
    lastEventId: number | undefined,
    signal: AbortSignal,
  ): Promise<Response> {
    const encoder = new TextEncoder();
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    let closed = false;
    const stream = new ReadableStream<Uint8Array>({
      start: (c) => {
        controller = c;
      },
      cancel: () => end(),
    });
    const write = (text: string) => {
      if (closed) return;
      try {
        controller.enqueue(encoder.encode(text));
      } catch {
        end();
      }
    };
    const sink: FeedSink = {
      // An event without an id leaves the client's Last-Event-ID where it was.
      event: (event: StreamEvent, id: number | null) =>
        write(`${id === null ? '' : `id: ${id}\n`}event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`),
      resync: (info: ResyncInfo) => write(`event: resync\ndata: ${JSON.stringify(info)}\n\n`),
    };
    write(`retry: ${this.#retryMs}\n: connected\n\n`);
    const leave = await feeds.join(run_id, sink, lastEventId);
    const heartbeat = setInterval(() => write(': heartbeat\n\n'), this.#heartbeatMs);
    heartbeat.unref();
    const end = () => {
      if (closed) return;
      closed = true;
      clearInterval(heartbeat);
      leave();
      this.#open.delete(end);
      try {
        controller.close();
      } catch {
        // Already closed by the client.
      }
    };
    this.#open.add(end);
    signal.addEventListener('abort', end, { once: true });
    return new Response(stream, {
      headers: SSE_HEADERS,
    });
  }

  /** A runtime's own frame stream (`sseResponse`), closed with the others on shutdown. */
  fromFrames(frames: AsyncIterable<string>, signal: AbortSignal): Response {
    return sseResponse(frames, signal, {
      heartbeatMs: this.#heartbeatMs,
      retryMs: this.#retryMs,
      track: (end) => {
        this.#open.add(end);
        return () => this.#open.delete(end);
      },
    });
  }

  /** Ends every open stream (the server is shutting down). */
  close(): void {
    for (const end of [...this.#open]) end();
  }
}
