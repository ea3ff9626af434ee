/** Route table types and path matching for the HTTP surface. Handlers never see the token guard. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Store } from '../../store/store.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** What a handler returns: a JSON (or HTML) reply, or `undefined` when it wrote the response itself. */
export type Reply = { status?: number; json: unknown } | { status?: number; html: string } | undefined;

/** Shared, long-lived services every route module can use. */
export interface AppServices {
  store: Store;
}

export interface RouteContext {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  params: Record<string, string>;
  requestId: string;
  /** Reads and parses a JSON body (bounded; `INVALID_INPUT` when malformed or too large). */
  readJson(): Promise<unknown>;
}

export interface Route {
  method: HttpMethod | 'ANY';
  /** Literal segments and `:name` parameters, e.g. `/source-invocations/:source_invocation_id`. */
  path: string;
  /** Public routes skip the token guard. Only `/healthz` is public. */
  public?: boolean;
  handle(ctx: RouteContext): Promise<Reply>;
}

export interface RouteMatch {
  route: Route;
  params: Record<string, string>;
}

/** Finds the route for a method and path; `methodMismatch` when the path exists with other methods. */
export function matchRoute(
  routes: readonly Route[],
  method: string,
  pathname: string,
): RouteMatch | { methodMismatch: true } | null {
  const segments = pathname.split('/').filter(Boolean);
  let pathMatched = false;
  for (const route of routes) {
    const params = matchPath(route.path, segments);
    if (!params) continue;
    if (route.method === 'ANY' || route.method === method || (method === 'HEAD' && route.method === 'GET')) {
      return { route, params };
    }
    pathMatched = true;
  }
  return pathMatched ? { methodMismatch: true } : null;
}

function matchPath(pattern: string, segments: string[]): Record<string, string> | null {
  const parts = pattern.split('/').filter(Boolean);
  if (parts.length !== segments.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    const seg = segments[i]!;
    if (part.startsWith(':')) {
      try {
        params[part.slice(1)] = decodeURIComponent(seg);
      } catch {
        return null;
      }
    } else if (part !== seg) {
      return null;
    }
  }
  return params;
}
