/** The HTTP server: token guard, routing, JSON replies, error envelopes, graceful close. */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tokenMatches } from '../../app/token.ts';
import { NoemaError } from '../../core/errors.ts';
import { errorReply } from './errors.ts';
import { matchRoute, type Reply, type Route, type RouteContext } from './router.ts';

export const MAX_BODY_BYTES = 4 * 1024 * 1024;

export interface HttpServerOptions {
  host: string;
  port: number;
  token: string;
  routes: readonly Route[];
}

export interface RunningHttpServer {
  server: Server;
  /** e.g. `http://127.0.0.1:8787` */
  url: string;
  close(): Promise<void>;
}

// Only the Authorization header: a token in a URL leaks into logs and history, and a cookie
// would need CSRF protection (the HTML browser will bring its own session mechanism).
function presentedToken(req: IncomingMessage): string | null {
  const auth = req.headers.authorization;
  return auth?.startsWith('Bearer ') ? auth.slice(7).trim() : null;
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

function readJsonBody(req: IncomingMessage): () => Promise<unknown> {
  let parsed: Promise<unknown> | null = null;
  return () => {
    parsed ??= new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      req.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_BODY_BYTES) {
          reject(new NoemaError('PAYLOAD_TOO_LARGE', `request body exceeds ${MAX_BODY_BYTES} bytes`));
          req.destroy();
          return;
        }
        chunks.push(chunk);
      });
      req.on('error', reject);
      req.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        if (text.trim() === '') return resolve(undefined);
        try {
          resolve(JSON.parse(text));
        } catch {
          reject(
            new NoemaError('INVALID_INPUT', 'request body is not valid JSON', { hint: 'send a JSON body' }),
          );
        }
      });
    });
    return parsed;
  };
}

function writeReply(res: ServerResponse, reply: Reply): void {
  if (!reply || res.writableEnded || res.headersSent) return;
  if ('html' in reply) {
    res.writeHead(reply.status ?? 200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(reply.html);
  } else {
    sendJson(res, reply.status ?? 200, reply.json);
  }
}

async function handle(options: HttpServerOptions, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const requestId = randomUUID();
  res.setHeader('x-request-id', requestId);
  try {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const match = matchRoute(options.routes, req.method ?? 'GET', url.pathname);
    if (match && 'route' in match && !match.route.public) {
      const token = presentedToken(req);
      if (!token || !tokenMatches(token, options.token)) {
        throw new NoemaError('UNAUTHORIZED', 'missing or wrong server token', {
          hint: 'send "Authorization: Bearer <token>" (the token noema serve printed, or NOEMA_TOKEN)',
        });
      }
    }
    if (!match) throw new NoemaError('NOT_FOUND', `no route for ${req.method} ${url.pathname}`);
    if ('methodMismatch' in match) {
      throw new NoemaError('METHOD_NOT_ALLOWED', `${req.method} is not allowed on ${url.pathname}`);
    }
    const ctx: RouteContext = { req, res, url, params: match.params, requestId, readJson: readJsonBody(req) };
    writeReply(res, await match.route.handle(ctx));
  } catch (err) {
    const { status, body } = errorReply(err, requestId);
    // Unexpected failures are the operator's to see; typed client errors are not logged.
    if (status >= 500) console.error(`noema: ${req.method} ${req.url} failed (request ${requestId}):`, err);
    if (!res.headersSent) sendJson(res, status, body);
    else res.end();
  }
}

export async function startHttpServer(options: HttpServerOptions): Promise<RunningHttpServer> {
  const server = createServer((req, res) => {
    void handle(options, req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    server,
    url: `http://${options.host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        // Long-lived streams (SSE, MCP) would hold close() open forever.
        setTimeout(() => server.closeAllConnections(), 2_000).unref();
      }),
  };
}
