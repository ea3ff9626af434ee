/**
 * The HTTP server: a node:http server running the Hono app (127.0.0.1 only), with a port that is
 * taken or not permitted reported as configuration (naming the setting), client disconnects kept
 * out of the failure log, and a graceful close that cuts long-lived streams after 2 s.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { NoemaError } from '../../core/errors.ts';
import { buildApp } from './app.ts';
import type { SessionKeeper } from './auth/sessions.ts';
import { FailureLog } from './errors.ts';
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

const DISCONNECT_CODES = new Set([
  'ECONNRESET',
  'EPIPE',
  'ECONNABORTED',
  'ERR_STREAM_PREMATURE_CLOSE',
  'ABORT_ERR',
]);

/** True for errors that only mean the client went away. */
export function isClientDisconnect(err: unknown): boolean {
  const e = err as { code?: string; name?: string } | null;
  return !!e && (DISCONNECT_CODES.has(e.code ?? '') || e.name === 'AbortError');
}

export function listenError(err: unknown, port: number, setting: string): unknown {
  const code = (err as { code?: string }).code;
  if (code === 'EADDRINUSE')
    return new NoemaError('CONFIG_INVALID', `${setting} is invalid: port ${port} is already in use`, {
      details: { setting, port },
      hint: `choose another port with ${setting}`,
    });
  if (code === 'EACCES' || code === 'EPERM')
    return new NoemaError('CONFIG_INVALID', `${setting} is invalid: port ${port} is not permitted`, {
      details: { setting, port },
      hint: `choose a port above 1023 with ${setting}`,
    });
  return err;
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
  const listener = getRequestListener(app.fetch, {
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
