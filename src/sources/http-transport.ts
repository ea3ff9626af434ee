/**
 * Outbound HTTP for the sources that speak it (`http_json`, `llm_chat_completions`): node:http and
 * node:https with one keep-alive agent each, the caller's `AbortSignal` honoured, and redirects
 * never followed — a source calls the URL its operator configured and nothing else, so a 3xx is an
 * answer like any other (the source fails it as `http_status`). The body is read chunk by chunk
 * (`read`), as it arrives.
 *
 * Why not `fetch`: its request and response machinery (web streams, the fetch algorithm's steps) is
 * several times the JavaScript of a node:http request; a traced call runs that code right after its
 * `running` row's commit, cold, so the lean path costs the call less and leaves the finish's commit
 * warmer caches (docs/design/sources-tracing-cost.md).
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { telemetry } from '../core/telemetry.ts';

// One pool per protocol for the process. Idle sockets do not keep the process alive (Node unrefs
// them) and are closed after 4 s, or before the server's announced keep-alive timeout if sooner, so
// a request is not sent on a socket the server is closing (an idle socket's timer only: a request's
// socket going quiet for longer emits an event nobody listens to, the call's deadline governs).
// An operator's proxy settings apply as they do to Node's own agents (and did to fetch): with
// NODE_USE_ENV_PROXY=1 or --use-env-proxy, HTTP_PROXY / HTTPS_PROXY / NO_PROXY are honoured.
const useEnvProxy = process.env.NODE_USE_ENV_PROXY === '1' || process.execArgv.includes('--use-env-proxy');
const POOL = {
  keepAlive: true,
  timeout: 4_000,
  scheduling: 'lifo',
  ...(useEnvProxy ? { proxyEnv: process.env } : {}),
} as const;
const agents = {
  'http:': new HttpAgent(POOL),
  'https:': new HttpsAgent(POOL),
};

/** Some gateways refuse a request without one (fetch sent `node`). */
const USER_AGENT = 'noema';

/** Above this many buffered bytes the socket is paused until the reader catches up. */
const HIGH_WATER = 1 << 20;

export interface HttpInit {
  method: string;
  headers: Record<string, string>;
  body?: string;
  signal: AbortSignal;
}

/** A response whose headers have arrived; its body is read with `read()`. */
export interface HttpReply {
  readonly status: number;
  /** 2xx. */
  readonly ok: boolean;
  /** A header's value (several values joined with `, `), or null. */
  header(name: string): string | null;
  /** Every header, names in lower case. */
  headers(): Record<string, string>;
  /** The body's next chunk, or null at its end. Rejects when the connection fails or is aborted. */
  read(): Promise<Uint8Array | null>;
  /** Whether the body has ended, waiting at most until the next turn of the event loop to know. */
  endsNow(): Promise<boolean>;
  /** Drops the rest of the body (the connection is closed, not reused). */
  cancel(): void;
}

/** Sends one request; resolves once the response's headers arrive. */
export function sendHttp(url: string | URL, init: HttpInit): Promise<HttpReply> {
  const target = typeof url === 'string' ? new URL(url) : url;
  const agent = agents[target.protocol as keyof typeof agents];
  if (!agent) return Promise.reject(new Error(`unsupported protocol ${target.protocol}`));
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  const headers: Record<string, string | number> = { 'user-agent': USER_AGENT, ...init.headers };
  // The call's W3C trace context, when tracing is on and the source did not turn it off.
  const traceparent = telemetry()?.outgoingTraceparent?.();
  if (traceparent && headers.traceparent === undefined) headers.traceparent = traceparent;
  if (init.body !== undefined) headers['content-length'] = Buffer.byteLength(init.body);
  return new Promise((resolve, reject) => {
    const req = send(target, { method: init.method, headers, agent, signal: init.signal });
    let reply: Reply | null = null;
    req.once('response', (res) => {
      reply = new Reply(res, init.signal);
      resolve(reply);
    });
    // Before the answer, an error rejects the request; after it (a malformed chunk, the socket
    // reset), the body's reader gets it.
    req.on('error', (err) => (reply ? reply.fail(err) : reject(err)));
    req.end(init.body);
  });
}

class Reply implements HttpReply {
  readonly status: number;
  readonly ok: boolean;
  readonly #res: IncomingMessage;
  readonly #chunks: Buffer[] = [];
  #buffered = 0;
  #ended = false;
  #failure: Error | null = null;
  readonly #signal: AbortSignal;
  #wake: (() => void) | null = null;

  constructor(res: IncomingMessage, signal: AbortSignal) {
    this.#res = res;
    this.status = res.statusCode ?? 0;
    this.ok = this.status >= 200 && this.status < 300;
    res.on('data', (chunk: Buffer) => {
      this.#chunks.push(chunk);
      this.#buffered += chunk.length;
      if (this.#buffered > HIGH_WATER) res.pause();
      this.#notify();
    });
    res.once('end', () => {
      this.#ended = true;
      this.#notify();
    });
    this.#signal = signal;
    // A connection cut mid-body: 'aborted' then 'error' (ECONNRESET "aborted") or only 'close'.
    res.on('error', (err) => this.fail(err));
    res.once('close', () => {
      if (!this.#ended) this.fail(new Error('the connection closed mid-body'));
    });
  }

  header(name: string): string | null {
    const v = this.#res.headers[name.toLowerCase()];
    return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
  }

  headers(): Record<string, string> {
    const out: Record<string, string> = {};
    const raw = this.#res.headers;
    for (const k in raw) {
      const v = raw[k];
      if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
    }
    return out;
  }

  async read(): Promise<Uint8Array | null> {
    for (;;) {
      const chunk = this.#chunks.shift();
      if (chunk) {
        this.#buffered -= chunk.length;
        if (this.#res.isPaused() && this.#buffered <= HIGH_WATER) this.#res.resume();
        return chunk;
      }
      if (this.#failure) throw this.#failure;
      if (this.#ended) return null;
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
    }
  }

  async endsNow(): Promise<boolean> {
    if (this.#chunks.length === 0 && this.#ended) return true;
    await new Promise((resolve) => setImmediate(resolve));
    return this.#chunks.length === 0 && this.#ended;
  }

  cancel(): void {
    this.#chunks.length = 0;
    if (!this.#ended) this.#res.destroy();
  }

  /** The body failed: the pending and later reads reject (with the abort's reason when aborted). */
  fail(err: Error): void {
    if (this.#ended) return;
    this.#failure ??= this.#signal.aborted ? abortError(this.#signal) : err;
    this.#notify();
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = null;
    wake?.();
  }
}

function abortError(signal: AbortSignal): Error {
  const reason = signal.reason;
  return reason instanceof Error
    ? reason
    : Object.assign(new Error('the request was aborted'), { name: 'AbortError' });
}
