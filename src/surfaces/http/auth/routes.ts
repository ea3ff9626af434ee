/**
 * Browser login: `GET /login` (a form, or `?once=<nonce>` from the link `noema serve` prints),
 * `POST /login` (the server token → a session cookie), `POST /logout` (cookie + CSRF).
 */
import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { tokenMatches } from '../../../app/token.ts';
import { NoemaError } from '../../../core/errors.ts';
import { h, layout } from '../html/render.ts';
import type { Route } from '../route.ts';
import { SESSION_COOKIE, SESSION_TTL_MS, type SessionKeeper } from './sessions.ts';

/** Only same-site paths: `next` must not become an open redirect. */
function safeNext(next: unknown): string {
  return typeof next === 'string' && /^\/(?![/\\])[\x21-\x7e]*$/.test(next) ? next : '/';
}

function loginForm(next: string, message?: string): string {
  return layout(
    'Log in',
    [],
    h`${message ? h`<p><strong>${message}</strong></p>` : ''}
<form method="post" action="/login">
<label>Server token <input type="password" name="token" autocomplete="current-password" autofocus></label>
<input type="hidden" name="next" value="${next}">
<button type="submit">Log in</button></form>
<p class="muted">The token is the one <code>noema serve</code> printed (or NOEMA_TOKEN).</p>`,
  );
}

function startSession(c: Context, sessions: SessionKeeper, next: string): Response {
  const { cookie } = sessions.issue();
  setCookie(c, SESSION_COOKIE, cookie, {
    httpOnly: true,
    sameSite: 'Strict',
    path: '/',
    maxAge: Math.floor(SESSION_TTL_MS / 1000),
  });
  return c.redirect(next, 303);
}

export function authRoutes(token: string, sessions: SessionKeeper): Route[] {
  return [
    {
      method: 'GET',
      path: '/login',
      public: true,
      internal: true,
      summary: 'The login form; `?once=` consumes a one-time login link',
      async handle({ c }) {
        const next = safeNext(c.req.query('next'));
        const once = c.req.query('once');
        if (once === undefined) return { html: loginForm(next) };
        if (!sessions.consumeLoginNonce(once)) {
          return { status: 401, html: loginForm(next, 'This login link was already used or has expired.') };
        }
        return startSession(c, sessions, next);
      },
    },
    {
      method: 'POST',
      path: '/login',
      public: true,
      internal: true,
      summary: 'Exchange the server token for a session cookie',
      async handle({ c }) {
        const form = await c.req.parseBody();
        const next = safeNext(form.next);
        const presented = typeof form.token === 'string' ? form.token.trim() : '';
        if (!presented || !tokenMatches(presented, token)) {
          return { status: 401, html: loginForm(next, 'Wrong token.') };
        }
        return startSession(c, sessions, next);
      },
    },
    {
      method: 'POST',
      path: '/logout',
      internal: true,
      summary: 'End the browser session (cookie and CSRF token)',
      async handle({ c, auth }) {
        if (auth !== 'cookie')
          throw new NoemaError('INVALID_INPUT', 'logout ends a browser session; this request has none', {
            status: 400,
          });
        const session = sessions.verify(getCookie(c, SESSION_COOKIE));
        if (session) await sessions.revoke(session);
        deleteCookie(c, SESSION_COOKIE, { path: '/' });
        return c.redirect('/login', 303);
      },
    },
  ];
}
