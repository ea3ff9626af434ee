/**
 * The Hono app: request and correlation ids, the auth guard, body limits, JSON/HTML replies,
 * the error envelope (also for 404/405), all built from `Route` descriptors.
 */
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { HttpBindings } from '@hono/node-server';
import { type Context, Hono } from 'hono';
import { NoemaError } from '../../core/errors.ts';
import { authenticate, checkCsrf } from './auth/guard.ts';
import { authRoutes } from './auth/routes.ts';
import type { SessionKeeper } from './auth/sessions.ts';
import { parseJsonBody, readIncomingBody } from './body.ts';
import { errorReply, FailureLog, isClientDisconnect } from './errors.ts';
import { assetRoutes } from './html/assets.ts';
import { wantsHtml } from './html/negotiate.ts';
import { renderErrorPage } from './html/pages.ts';
import { joinPieces } from './json-pieces.ts';
import type { Reply, Route, RouteContext } from './route.ts';
import { homeRoutes } from './routes/home.ts';
import { securityHeaders } from './security-headers.ts';

export type AppEnv = {
  Bindings: HttpBindings;
  Variables: { requestId: string; correlationId: string | undefined };
};

export interface AppOptions {
  token: string;
  sessions: SessionKeeper;
  routes: readonly Route[];
  failures?: FailureLog;
}

const CORRELATION_ID = /^[\x21-\x7e]{1,128}$/;

export function buildApp(options: AppOptions): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const failures = options.failures ?? new FailureLog();

  // First, so it wraps everything after it: even an error thrown by the middleware below.
  app.use('*', securityHeaders);
  app.use('*', async (c, next) => {
    const requestId = randomUUID();
    c.set('requestId', requestId);
    c.header('x-request-id', requestId);
    const correlationId = c.req.header('x-correlation-id');
    if (correlationId !== undefined) {
      if (!CORRELATION_ID.test(correlationId)) {
        throw new NoemaError('INVALID_INPUT', 'x-correlation-id must be 1-128 printable ASCII characters', {
          status: 400,
        });
      }
      c.set('correlationId', correlationId);
      c.header('x-correlation-id', correlationId);
    }
    await next();
  });

  const all: Route[] = [];
  all.push(...homeRoutes(() => all), ...authRoutes(options.token, options.sessions), ...options.routes);
  const byPath = new Map<string, Route[]>();
  // The pages' assets are served like routes but are not API: not in `GET /` nor /openapi.json.
  for (const route of [...all, ...assetRoutes()]) {
    byPath.set(route.path, [...(byPath.get(route.path) ?? []), route]);
  }
  for (const [path, routes] of byPath) {
    for (const route of routes) {
      const handler = async (c: Context<AppEnv>) => {
        const ctx = await routeContext(c, route, options);
        return toResponse(c, await route.handle(ctx));
      };
      if (route.method === 'ANY') app.all(path, handler);
      else app.on(route.method, path, handler);
    }
    if (!routes.some((r) => r.method === 'ANY')) {
      const allowed = routes.map((r) => r.method).join(', ');
      app.all(path, (c) => {
        throw new NoemaError('METHOD_NOT_ALLOWED', `${c.req.method} is not allowed on ${c.req.path}`, {
          status: 405,
          details: { allowed },
        });
      });
    }
  }

  app.notFound((c) => {
    throw new NoemaError('NOT_FOUND', `no route for ${c.req.method} ${c.req.path}`, { status: 404 });
  });

  app.onError((err, c) => {
    const requestId = c.get('requestId') ?? randomUUID();
    const reply = errorReply(err, requestId, c.get('correlationId'));
    // A client that went away is not a server failure (and there is nobody to answer).
    if (isClientDisconnect(err) || c.req.raw.signal.aborted) return c.body(null, 499 as 400);
    failures.failed(reply, c.req.method, c.req.path, requestId);
    c.header('x-request-id', requestId);
    if (reply.status === 401 && wantsHtml(c) && c.req.method === 'GET') {
      return c.redirect(`/login?next=${encodeURIComponent(c.req.path)}`, 303);
    }
    if (wantsHtml(c)) return c.html(renderErrorPage(reply.status, reply.body), reply.status as 400);
    return c.json(reply.body, reply.status as 400);
  });

  return app;
}

async function routeContext(c: Context<AppEnv>, route: Route, options: AppOptions): Promise<RouteContext> {
  const auth =
    route.public && !(route.tokenOptional && c.req.header('authorization') !== undefined)
      ? { kind: 'public' as const, session: null }
      : await authenticate(c, options.token, options.sessions);
  // The body is read once, under the limit, after authentication (an unknown caller's upload is
  // never buffered) and before the CSRF check (forms carry the token in the body).
  const method = c.req.method;
  if (method !== 'GET' && method !== 'HEAD' && method !== 'OPTIONS' && c.env?.incoming) {
    const body = await readIncomingBody(c.env.incoming, c.req.header('content-length'));
    c.req.raw = new Request(c.req.raw, { body: new Uint8Array(body) });
  }
  await checkCsrf(c, auth, options.sessions);
  let body: Promise<unknown> | null = null;
  return {
    c,
    url: new URL(c.req.url),
    params: c.req.param() as Record<string, string>,
    requestId: c.get('requestId'),
    correlationId: c.get('correlationId'),
    auth: auth.kind,
    csrfToken: auth.session?.csrf,
    readJson: () => {
      body ??= c.req.text().then((text) => parseJsonBody(text, route.body));
      return body;
    },
  };
}

function toResponse(c: Context<AppEnv>, reply: Reply): Response {
  if (reply instanceof Response) return reply;
  if ('html' in reply) return c.html(reply.html, (reply.status ?? 200) as 200);
  if ('jsonPieces' in reply) return jsonPiecesResponse(c, reply.jsonPieces, reply.status ?? 200);
  return c.json(reply.json as object, (reply.status ?? 200) as 200);
}

/** Pieces of UTF-8 JSON as one body (`json-pieces.ts`: copied into a reused buffer). */
function jsonPiecesResponse(c: Context<AppEnv>, pieces: readonly Uint8Array[], status: number): Response {
  const body = joinPieces(pieces, c.env?.outgoing as ServerResponse | undefined);
  return c.body(body as Uint8Array<ArrayBuffer>, status as 200, { 'content-type': 'application/json' });
}
