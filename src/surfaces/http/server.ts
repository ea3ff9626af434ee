/**
 * The HTTP server: a node:http server running the Hono app (127.0.0.1 only), with a port that is
 * taken or not permitted reported as configuration (naming the setting), client disconnects kept
 * out of the failure log, and a graceful close that cuts long-lived streams after 2 s.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener, RequestError } from '@hono/node-server';
import { listenError } from '../../app/listen-error.ts';
import { NoemaError } from '../../core/errors.ts';
import { telemetry } from '../../core/telemetry.ts';
import { withIncomingTraceparent } from '../../observability/index.ts';
import { buildApp } from './app.ts';
import type { SessionKeeper } from './auth/sessions.ts';
import { errorReply, FailureLog, isClientDisconnect } from './errors.ts';
import type { Route } from './route.ts';

export { MAX_BODY_BYTES } from './body.ts';

export interface HttpServerOptions {
  host: string;
  port: number;
  token: string;
  sessions: SessionKeeper;
  routes: readonly Route[];
  /** The routes loaded on the first request `routes` do not serve (see AppOptions.onDemand). */
  onDemand?: () => Promise<readonly Route[]>;
  /** How the port was configured, named in errors (`--port` or `NOEMA_PORT`). */
  portSetting?: string;
  failures?: FailureLog;
}

export interface RunningHttpServer {
  server: Server;
  /** e.g. `http://127.0.0.1:8787` */
  url: string;
  /** Runs before connections are cut (stream owners end their streams cleanly). */
  onClose(hook: () => void | Promise<void>): void;
  close(): Promise<void>;
}

/** Listens on `host:port`, turning "in use" / "not permitted" into a CONFIG_INVALID naming `setting`. */
export async function listenOn(server: Server, host: string, port: number, setting: string): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    const onError = (err: unknown) => reject(listenError(err, port, setting));
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
  return (server.address() as AddressInfo).port;
}

export async function startHttpServer(options: HttpServerOptions): Promise<RunningHttpServer> {
  const failures = options.failures ?? new FailureLog();
  const app = buildApp({
    token: options.token,
    sessions: options.sessions,
    routes: options.routes,
    ...(options.onDemand ? { onDemand: options.onDemand } : {}),
    failures,
  });
  // One request through the app before the first client's: Hono builds its route matchers on the
  // first match (about 10 ms for the catalog's routes), and Node loads its fetch classes
  // (`Request`, `Response`, web streams) on first use; a client should not wait for either.
  await app.request('/healthz');
  const listener = getRequestListener(app.fetch, {
    // Bodies are read fully by the app (or never, when content-length is over the limit, and then
    // Node discards them after the response): no early socket destroy that would cut a 413.
    autoCleanupIncoming: false,
    // Reached only when no Response exists: the request could not be built (a RequestError: bad
    // target or Host) or the app threw outside its own error handler. Answer either way, so the
    // client is never left on an open connection with no response.
    errorHandler: (err) => {
      if (isClientDisconnect(err)) return;
      if (err instanceof RequestError) {
        failures.malformed(err.message);
        return envelopeResponse(
          new NoemaError('INVALID_INPUT', `malformed request: ${err.message}`, {
            status: 400,
            hint: 'send an origin-form path without backslashes (or an http:// absolute URL) and a plain Host header',
          }),
        );
      }
      const reply = errorReply(err, randomUUID());
      failures.failed(reply, '?', '?', reply.body.request_id);
      return envelopeResponse(reply.error);
    },
  });
  // A missing Host reaches the listener too (Node would answer a bare 400), to get the envelope.
  const server = createServer({ requireHostHeader: false }, (req, res) => {
    // With tracing on, an incoming W3C traceparent is the parent of whatever the request starts.
    const traceparent = telemetry()?.aroundCall ? req.headers.traceparent : undefined;
    if (typeof traceparent === 'string') withIncomingTraceparent(traceparent, () => void listener(req, res));
    else void listener(req, res);
  });
  // An idle keep-alive connection outlives the usual idle timeouts of proxies and client pools (60 s):
  // a server that closes its side first races the request a client sends on it at that moment, which
  // the client sees as a reset (and does not retry for a POST). Node's default is 5 s.
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  server.headersTimeout = KEEP_ALIVE_MS + 1_000;
  // Requests Node's parser refuses (bad header bytes, overflowing headers…); a client that resets
  // mid-request is not a server failure.
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    if (isClientDisconnect(err) || !socket.writable) {
      socket.destroy();
      return;
    }
    failures.malformed(err.code ?? err.message);
    socket.end(clientErrorBytes(err.code ?? 'bad request'));
  });
  const port = await listenOn(server, options.host, options.port, options.portSetting ?? 'NOEMA_PORT');
  const hooks: Array<() => void | Promise<void>> = [];
  return {
    server,
    url: `http://${options.host}:${port}`,
    onClose: (hook) => {
      hooks.push(hook);
    },
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await Promise.allSettled(hooks.map((h) => h()));
      // Long-lived streams (SSE, MCP) would hold close() open forever.
      const cut = setTimeout(() => server.closeAllConnections(), 2_000);
      await closed;
      clearTimeout(cut);
    },
  };
}

/** How long an idle keep-alive connection is held open. */
export const KEEP_ALIVE_MS = 65_000;

/** The error envelope for a request the app never saw; the connection is closed after it. */
function envelopeResponse(err: NoemaError): Response {
  const requestId = randomUUID();
  const reply = errorReply(err, requestId);
  return new Response(JSON.stringify(reply.body), {
    status: reply.status,
    headers: { 'content-type': 'application/json', 'x-request-id': requestId, connection: 'close' },
  });
}

/** A raw 400 with the envelope, for requests Node's HTTP parser refused (no Response exists yet). */
function clientErrorBytes(kind: string): string {
  const requestId = randomUUID();
  const body = JSON.stringify(
    errorReply(new NoemaError('INVALID_INPUT', `malformed request: ${kind}`, { status: 400 }), requestId)
      .body,
  );
  return [
    'HTTP/1.1 400 Bad Request',
    'content-type: application/json',
    `content-length: ${Buffer.byteLength(body)}`,
    `x-request-id: ${requestId}`,
    'connection: close',
    '',
    body,
  ].join('\r\n');
}
