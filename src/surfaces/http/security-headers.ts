/**
 * Hardening headers on every response: a Content-Security-Policy that allows only this server's own
 * scripts, styles and connections (nothing inline), no framing, no MIME sniffing, and referrers kept
 * on this origin. And how the app sets any response header before a route answers (`presetHeader`).
 */
import type { ServerResponse } from 'node:http';
import type { Context, MiddlewareHandler } from 'hono';

/**
 * `img-src data:` is for SVG pictures' data URLs; `connect-src 'self'` for the live script's
 * EventSource and page re-reads (and Socket.IO); `form-action 'self'` for login, logout and forms.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
};

/** Sets `SECURITY_HEADERS` on the response (error pages, redirects and streams included). */
export const securityHeaders: MiddlewareHandler = async (c, next) => {
  const out = nodeResponse(c);
  if (out) {
    for (const name in SECURITY_HEADERS) out.setHeader(name, SECURITY_HEADERS[name]!);
    return next();
  }
  await next();
  for (const name in SECURITY_HEADERS) c.header(name, SECURITY_HEADERS[name]!);
};

/**
 * Sets a header on the response before the route answers. Under the Node server it goes on Node's
 * response, which merges it into whatever is written there: Hono's reply, an error page, a stream
 * a route writes itself. Elsewhere (`app.request`) it goes on Hono's context.
 *
 * Never on Hono's reply once it exists: a header set on a finished reply rebuilds it as a web
 * `Response` whose body is a stream, read back before it is written — for a small JSON answer more
 * work than everything else the request did (`GET /healthz`: 38 → 17.5 µs of CPU a request).
 */
export function presetHeader(c: Context, name: string, value: string): void {
  const out = nodeResponse(c);
  if (out) out.setHeader(name, value);
  else c.header(name, value);
}

/** The Node response the request is answered on, when the app runs under the Node server. */
function nodeResponse(c: Context): ServerResponse | undefined {
  return (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
}
