/**
 * The route contract of the HTTP surface: a route is data (method, path, auth, parameter and body
 * schemas) plus a handler. The Hono app, the `GET /` index and `/openapi.json` are all built from
 * these descriptors, so a route cannot exist without being documented.
 */
import type { Context } from 'hono';
import type { JsonSchema } from '../../core/schema-registry.ts';
import type { Engine } from '../../engine/index.ts';
import type { Metrics } from '../../observability/index.ts';
import type { Store } from '../../store/store.ts';
import type { FailureLog } from './errors.ts';
import type { RunFeeds } from './events/feed.ts';
import type { SseStreams } from './events/sse.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** What a handler returns: a JSON (or HTML) reply, or a ready `Response` (streams, redirects). */
export type Reply =
  | { status?: number; json: unknown }
  /** JSON already serialized (an answer measured against its budget as this text). */
  | { status?: number; jsonText: string }
  /** JSON already serialized as UTF-8, in pieces sent in order (a large world's answer). */
  | { status?: number; jsonPieces: readonly Uint8Array[] }
  | { status?: number; html: string }
  | Response;

/** Shared, long-lived services every route module can use. */
export interface AppServices {
  store: Store;
  /** Present when the server runs an engine (event streams, run detail). */
  engine?: Engine;
  /** Present with `engine`: shared run feeds and the open SSE streams. */
  events?: { feeds: RunFeeds; sse: SseStreams };
  /** Registers work to finish when the server closes (e.g. a runtime's background runs). */
  onClose?(hook: () => Promise<void>): void;
  /** Told when a store read succeeded, so a store outage is logged once per incident. */
  failures?: FailureLog;
  /** The Prometheus metrics served at `/metrics`, when collected. */
  metrics?: Metrics | null;
}

/** How the request was authenticated; `cookie` requests that change state need the CSRF token. */
export type AuthKind = 'public' | 'bearer' | 'cookie';

export interface RouteContext {
  /** The Hono context (raw request, headers, node bindings). */
  c: Context;
  url: URL;
  params: Record<string, string>;
  requestId: string;
  /** The caller's `x-correlation-id` (validated), to be recorded on anything the request creates. */
  correlationId: string | undefined;
  auth: AuthKind;
  /** The session's CSRF token when authenticated by cookie (HTML forms embed it). */
  csrfToken: string | undefined;
  /** Reads and parses the JSON body (bounded; 413 over the limit, 400 when malformed or schema-invalid). */
  readJson(): Promise<unknown>;
}

/** A documented parameter (query or path) for the index and OpenAPI. */
export interface ParamDoc {
  name: string;
  in: 'query' | 'path';
  schema: Record<string, unknown>;
  description?: string;
  required?: boolean;
}

export interface Route {
  method: HttpMethod | 'ANY';
  /** Literal segments and `:name` parameters, e.g. `/source-invocations/:source_invocation_id`. */
  path: string;
  /** Public routes skip the auth guard. */
  public?: boolean;
  /**
   * A public route that a request sending `Authorization` is authenticated on (a wrong token is 401):
   * the handler sees `ctx.auth` `bearer` and may answer more (`/healthz?details=1`).
   */
  tokenOptional?: boolean;
  summary?: string;
  /** Documented parameters (validation happens in the handler or the catalog). */
  params?: ParamDoc[];
  /** JSON Schema for the body of POST/PUT/PATCH routes: `readJson()` validates against it. */
  body?: JsonSchema;
  /** Left out of `/openapi.json` (MCP, login forms, streams document themselves elsewhere). */
  internal?: boolean;
  handle(ctx: RouteContext): Promise<Reply>;
}
