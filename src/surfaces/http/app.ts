/**
 * The Hono app: request and correlation ids, the auth guard, body limits, JSON/HTML replies,
 * the error envelope (also for 404/405), all built from `Route` descriptors.
 */
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { HttpBindings } from '@hono/node-server';
import { type Context, type Env, Hono } from 'hono';
import { NoemaError } from '../../core/errors.ts';
import { loadOnce } from '../../core/load-once.ts';
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
import { presetHeader, securityHeaders } from './security-headers.ts';

export type AppEnv = {
  Bindings: HttpBindings;
  Variables: { requestId: string; correlationId: string | undefined };
};

export interface AppOptions {
  token: string;
  sessions: SessionKeeper;
  /** Served from the start. */
  routes: readonly Route[];
  /**
   * The rest of the surface, loaded on the first request `routes` do not serve: concurrent first
   * requests share one load, and a failed load is tried again by the next request. None of its paths
   * may be one of `routes`' (that path's 405 would answer first).
   */
  onDemand?: () => Promise<readonly Route[]>;
  failures?: FailureLog;
}

const CORRELATION_ID = /^[\x21-\x7e]{1,128}$/;
/** A body's text as `Request.text()` reads it: a leading byte order mark dropped, bad bytes replaced. */
const UTF8 = new TextDecoder();

export function buildApp(options: AppOptions): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const failures = options.failures ?? new FailureLog();

  // First, so it wraps everything after it: even an error thrown by the middleware below.
  app.use('*', securityHeaders);
  app.use('*', async (c, next) => {
    const requestId = randomUUID();
    c.set('requestId', requestId);
    presetHeader(c, 'x-request-id', requestId);
    const correlationId = c.req.header('x-correlation-id');
    if (correlationId !== undefined) {
      if (!CORRELATION_ID.test(correlationId)) {
        throw new NoemaError('INVALID_INPUT', 'x-correlation-id must be 1-128 printable ASCII characters', {
          status: 400,
        });
      }
      c.set('correlationId', correlationId);
      presetHeader(c, 'x-correlation-id', correlationId);
    }
    await next();
  });

  const eager: Route[] = [];
  const onDemand = options.onDemand
    ? loadOnce(async () => onDemandRouter(await options.onDemand!(), eager, options))
    : null;
  const every = async () => [...eager, ...(onDemand ? (await onDemand()).routes : [])];
  eager.push(...homeRoutes(every), ...authRoutes(options.token, options.sessions), ...options.routes);
  // The pages' assets are served like routes but are not API: not in `GET /` nor /openapi.json.
  addRoutes(app, [...eager, ...assetRoutes()], (c, route) => handle(c, route, c.req.param(), options));
  // Registered last: reached only by requests no route above answered (404 included).
  if (onDemand) app.all('*', async (c) => (await onDemand()).serve(c));

  app.notFound(notFound);

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

function notFound(c: Context): never {
  throw new NoemaError('NOT_FOUND', `no route for ${c.req.method} ${c.req.path}`, { status: 404 });
}

/** Adds `routes` to `app`, and a 405 on each of their paths for the methods none of them takes. */
function addRoutes<E extends Env>(
  app: Hono<E>,
  routes: readonly Route[],
  handler: (c: Context<E>, route: Route) => Promise<Response>,
): void {
  const byPath = new Map<string, Route[]>();
  for (const route of routes) byPath.set(route.path, [...(byPath.get(route.path) ?? []), route]);
  for (const [path, onPath] of byPath) {
    for (const route of onPath) {
      const h = (c: Context<E>) => handler(c, route);
      if (route.method === 'ANY') app.all(path, h);
      else app.on(route.method, path, h);
    }
    if (!onPath.some((r) => r.method === 'ANY')) {
      const allowed = onPath.map((r) => r.method).join(', ');
      app.all(path, (c) => {
        throw new NoemaError('METHOD_NOT_ALLOWED', `${c.req.method} is not allowed on ${c.req.path}`, {
          status: 405,
          details: { allowed },
        });
      });
    }
  }
}

/**
 * The routes loaded on demand, in a router of their own (Hono's matchers are fixed once built): a
 * request is handed to it with the outer app's context, in which its route runs, so ids, headers
 * and errors are the outer app's; its 404s and errors are thrown back to the outer app.
 */
function onDemandRouter(routes: readonly Route[], eager: readonly Route[], options: AppOptions) {
  const taken = new Set(eager.map((r) => r.path));
  const clash = routes.find((r) => taken.has(r.path));
  if (clash) throw new Error(`${clash.path} is both served from the start and on demand`);
  const router = new Hono<{ Bindings: { outer: Context<AppEnv> } }>();
  addRoutes(router, routes, (c, route) => handle(c.env.outer, route, c.req.param(), options));
  router.notFound(notFound);
  router.onError((err) => {
    throw err;
  });
  return {
    routes,
    serve: (c: Context<AppEnv>) => router.fetch(c.req.raw, { outer: c }),
  };
}

async function handle(
  c: Context<AppEnv>,
  route: Route,
  params: Record<string, string>,
  options: AppOptions,
): Promise<Response> {
  const ctx = await routeContext(c, route, params, options);
  return toResponse(c, await route.handle(ctx));
}

async function routeContext(
  c: Context<AppEnv>,
  route: Route,
  params: Record<string, string>,
  options: AppOptions,
): Promise<RouteContext> {
  const auth =
    route.public && !(route.tokenOptional && c.req.header('authorization') !== undefined)
      ? { kind: 'public' as const, session: null }
      : await authenticate(c, options.token, options.sessions);
  // The body is read once, under the limit, after authentication (an unknown caller's upload is
  // never buffered) and before the CSRF check (forms carry the token in the body).
  const method = c.req.method;
  let read: Buffer | null = null;
  if (method !== 'GET' && method !== 'HEAD' && method !== 'OPTIONS' && c.env?.incoming) {
    read = await readIncomingBody(c.env.incoming, c.req.header('content-length'));
    holdBody(c, read);
  }
  await checkCsrf(c, auth, options.sessions);
  let body: Promise<unknown> | null = null;
  return {
    c,
    url: new URL(c.req.url),
    params,
    requestId: c.get('requestId'),
    correlationId: c.get('correlationId'),
    auth: auth.kind,
    csrfToken: auth.session?.csrf,
    readJson: () => {
      body ??= read
        ? Promise.resolve().then(() => parseJsonBody(UTF8.decode(read), route.body))
        : c.req.text().then((text) => parseJsonBody(text, route.body));
      return body;
    },
  };
}

/**
 * The body read under the limit, held where Hono's own readers (`c.req.parseBody()`, `text()`, …)
 * look first: its body cache, as the promise those readers keep there. The request is not rebuilt
 * around the bytes: a `Request` made from the node request, then another holding the body, read back
 * through a stream, cost a POST more than the rest of its routing (`docs/http.md`).
 */
function holdBody(c: Context<AppEnv>, bytes: Buffer): void {
  const cache = c.req.bodyCache as Record<string, Promise<unknown>>;
  cache.arrayBuffer = Promise.resolve(
    bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength),
  );
}

function toResponse(c: Context<AppEnv>, reply: Reply): Response {
  if (reply instanceof Response) return reply;
  if ('html' in reply) return c.html(reply.html, (reply.status ?? 200) as 200);
  if ('jsonPieces' in reply) return jsonPiecesResponse(c, reply.jsonPieces, reply.status ?? 200);
  if ('jsonText' in reply)
    return c.body(reply.jsonText, (reply.status ?? 200) as 200, { 'content-type': 'application/json' });
  return c.json(reply.json as object, (reply.status ?? 200) as 200);
}

/** Pieces of UTF-8 JSON as one body (`json-pieces.ts`: copied into a reused buffer). */
function jsonPiecesResponse(c: Context<AppEnv>, pieces: readonly Uint8Array[], status: number): Response {
  const body = joinPieces(pieces, c.env?.outgoing as ServerResponse | undefined);
  return c.body(body as Uint8Array<ArrayBuffer>, status as 200, { 'content-type': 'application/json' });
}
