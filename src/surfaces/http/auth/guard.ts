/**
 * Who may call a route: API clients with `Authorization: Bearer <token>` (scheme compared
 * case-insensitively, token in constant time), browsers with the session cookie. A state-changing
 * request authenticated by cookie must also present the session's CSRF token (`x-csrf-token`
 * header or `_csrf` form field). The token is never read from a URL.
 */
import type { Context } from 'hono';
import { getCookie } from 'hono/cookie';
import { tokenMatches } from '../../../app/token.ts';
import { NoemaError } from '../../../core/errors.ts';
import type { AuthKind } from '../route.ts';
import { SESSION_COOKIE, type Session, type SessionKeeper } from './sessions.ts';

export interface AuthResult {
  kind: AuthKind;
  session: Session | null;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

function unauthorized(message: string): NoemaError {
  return new NoemaError('UNAUTHORIZED', message, {
    status: 401,
    hint: 'send "Authorization: Bearer <token>" (the token noema serve printed, or NOEMA_TOKEN), or log in at /login',
  });
}

/** The bearer token of an `Authorization` header, or null when the header uses another scheme. */
export function bearerToken(header: string | undefined): string | null {
  const m = header === undefined ? null : /^bearer[ \t]+(.+)$/i.exec(header.trim());
  return m ? m[1]!.trim() : null;
}

export async function authenticate(c: Context, token: string, sessions: SessionKeeper): Promise<AuthResult> {
  const header = c.req.header('authorization');
  if (header !== undefined) {
    const presented = bearerToken(header);
    if (presented === null || !tokenMatches(presented, token))
      throw unauthorized('missing or wrong server token');
    return { kind: 'bearer', session: null };
  }
  const session = await sessions.verifyDurably(getCookie(c, SESSION_COOKIE));
  if (!session) throw unauthorized('missing or wrong server token');
  return { kind: 'cookie', session };
}

/** A state-changing request authenticated by cookie must carry the session's CSRF token (call after the body is read). */
export async function checkCsrf(c: Context, auth: AuthResult, sessions: SessionKeeper): Promise<void> {
  if (auth.kind !== 'cookie' || !auth.session || SAFE_METHODS.has(c.req.method)) return;
  if (sessions.csrfMatches(auth.session, await presentedCsrf(c))) return;
  throw new NoemaError('CSRF_INVALID', 'missing or wrong CSRF token for a cookie-authenticated request', {
    status: 403,
    hint: 'send the session CSRF token as x-csrf-token (HTML forms carry it as _csrf)',
  });
}

async function presentedCsrf(c: Context): Promise<string | undefined> {
  const header = c.req.header('x-csrf-token');
  if (header !== undefined) return header;
  const type = c.req.header('content-type') ?? '';
  if (!type.startsWith('application/x-www-form-urlencoded')) return undefined;
  const form = await c.req.parseBody();
  return typeof form._csrf === 'string' ? form._csrf : undefined;
}
