/**
 * A Server-Sent Events client for tests and benchmarks, parsing the stream as the WHATWG
 * EventSource does (fields `id`, `event`, `data`, `retry`; comments; events dispatched on a blank
 * line; `id` persisting across events), over fetch so it can send headers and `Last-Event-ID`.
 */

export interface SseMessage {
  /** The last event id seen (EventSource's `lastEventId`), '' when none. */
  id: string;
  event: string;
  data: string;
}

export interface SseConnection {
  status: number;
  /** Resolves with the next message, or null when the stream ended; rejects after `timeoutMs`. */
  next(timeoutMs?: number): Promise<SseMessage | null>;
  /** Comment lines seen so far (heartbeats). */
  comments(): string[];
  retryMs(): number | null;
  close(): void;
}

export async function connectSse(url: string, headers: Record<string, string> = {}): Promise<SseConnection> {
  const abort = new AbortController();
  const res = await fetch(url, {
    headers: { accept: 'text/event-stream', ...headers },
    signal: abort.signal,
  });
  const queue: Array<SseMessage | null> = [];
  const waiters: Array<(m: SseMessage | null) => void> = [];
  const comments: string[] = [];
  let retry: number | null = null;
  const push = (m: SseMessage | null) => {
    const w = waiters.shift();
    if (w) w(m);
    else queue.push(m);
  };
  if (res.ok && res.body) {
    void (async () => {
      const decoder = new TextDecoder();
      let buffer = '';
      let lastId = '';
      let event = '';
      let data: string[] = [];
      try {
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
          buffer += decoder.decode(chunk, { stream: true });
          let nl = buffer.search(/\r\n|\r|\n/);
          while (nl >= 0) {
            const line = buffer.slice(0, nl);
            buffer = buffer.slice(buffer[nl] === '\r' && buffer[nl + 1] === '\n' ? nl + 2 : nl + 1);
            if (line === '') {
              if (data.length > 0) push({ id: lastId, event: event || 'message', data: data.join('\n') });
              event = '';
              data = [];
            } else if (line.startsWith(':')) {
              comments.push(line.slice(1).trim());
            } else {
              const colon = line.indexOf(':');
              const field = colon < 0 ? line : line.slice(0, colon);
              let value = colon < 0 ? '' : line.slice(colon + 1);
              if (value.startsWith(' ')) value = value.slice(1);
              if (field === 'data') data.push(value);
              else if (field === 'event') event = value;
              else if (field === 'id' && !value.includes('\0')) lastId = value;
              else if (field === 'retry' && /^\d+$/.test(value)) retry = Number(value);
            }
            nl = buffer.search(/\r\n|\r|\n/);
          }
        }
      } catch {
        // Aborted or cut: the stream ended.
      }
      push(null);
    })();
  } else {
    push(null);
  }
  return {
    status: res.status,
    next(timeoutMs = 10_000) {
      const queued = queue.length > 0 ? queue.shift() : undefined;
      if (queued !== undefined) return Promise.resolve(queued);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          const i = waiters.indexOf(done);
          if (i >= 0) waiters.splice(i, 1);
          reject(new Error(`no SSE message within ${timeoutMs} ms from ${url}`));
        }, timeoutMs);
        const done = (m: SseMessage | null) => {
          clearTimeout(timer);
          resolve(m);
        };
        waiters.push(done);
      });
    },
    comments: () => [...comments],
    retryMs: () => retry,
    close: () => abort.abort(),
  };
}
