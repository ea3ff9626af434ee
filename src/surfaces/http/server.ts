/**
 * The HTTP server: a node:http server running the Hono app (127.0.0.1 only), with a port that is
 * taken or not permitted reported as configuration (naming the setting), client disconnects kept
 * out of the failure log, and a graceful close that cuts long-lived streams after 2 s.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { listenError } from '../../app/listen-error.ts';
import { buildApp } from './app.ts';
import type { SessionKeeper } from './auth/sessions.ts';
import { FailureLog, isClientDisconnect } from './errors.ts';
import type { Route } from './route.ts';

export { MAX_BODY_BYTES } from './body.ts';

export interface HttpServerOptions {
  host: string;
  port: number;
  token: string;
  sessions: SessionKeeper;
  routes: readonly Route[];
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
    errorHandler: (err) => {
      if (!isClientDisconnect(err)) console.error('noema: response failed:', err);
    },
  });
  const server = createServer((req, res) => {
    void listener(req, res);
  });
  // A client that resets mid-request is not a server failure.
  server.on('clientError', (err, socket) => {
    if (!isClientDisconnect(err) && socket.writable)
      socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n');
    else socket.destroy();
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
