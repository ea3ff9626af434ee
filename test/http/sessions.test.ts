/**
 * Browser sessions on a real server: the login form and the one-time link give an HttpOnly,
 * SameSite=Strict cookie; cookie requests that change state need the CSRF token; bearer clients
 * are unaffected; the token is still refused in a URL.
 */
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { openTestStore } from '../../src/testing/stores.ts';
import { startTestHttp, TOKEN } from './helpers.ts';

function cookieOf(res: Response): string {
  const set = res.headers.get('set-cookie') ?? '';
  const m = /noema_session=([^;]+)/.exec(set);
  assert.ok(m, `a session cookie in ${set}`);
  return `noema_session=${m[1]}`;
}

test('login by form and by one-time link; cookie auth for pages; CSRF on state changes; bearer unchanged', async () => {
  const { store, dispose } = await openTestStore('sqlite');
  const http = await startTestHttp(store);
  const html = { accept: 'text/html' };
  try {
    // A browser without a session is sent to the login form; an API client gets the 401 envelope.
    const anon = await fetch(`${http.url}/runs`, { headers: html, redirect: 'manual' });
    assert.equal(anon.status, 303);
    assert.equal(anon.headers.get('location'), '/login?next=%2Fruns');
    assert.equal((await http.get('/runs', { auth: false })).status, 401);
    assert.equal((await http.get(`/runs?token=${TOKEN}`, { auth: false })).status, 401);

    const form = await fetch(`${http.url}/login?next=/runs`);
    assert.equal(form.status, 200);
    assert.match(await form.text(), /<input type="password" name="token"/);

    const post = (body: Record<string, string>, headers: Record<string, string> = {}) =>
      fetch(`${http.url}/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body: new URLSearchParams(body),
        redirect: 'manual',
      });
    const wrong = await post({ token: 'not-the-token-at-all', next: '/runs' });
    assert.equal(wrong.status, 401);
    assert.equal(wrong.headers.get('set-cookie'), null);

    const ok = await post({ token: TOKEN, next: '//evil.example/' });
    assert.equal(ok.status, 303);
    assert.equal(ok.headers.get('location'), '/', 'next must stay on this site');
    const setCookie = ok.headers.get('set-cookie') ?? '';
    assert.match(setCookie, /HttpOnly/);
    assert.match(setCookie, /SameSite=Strict/);
    assert.match(setCookie, /Path=\//);
    assert.match(setCookie, /Max-Age=\d+/);
    const cookie = cookieOf(ok);

    const page = await fetch(`${http.url}/runs`, { headers: { ...html, cookie } });
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<h1>Runs<\/h1>/);
    const api = await fetch(`${http.url}/runs`, { headers: { cookie } });
    assert.equal(api.status, 200, 'a cookie authenticates JSON reads too');

    // State changes by cookie need the CSRF token.
    const noCsrf = await fetch(`${http.url}/logout`, {
      method: 'POST',
      headers: { cookie },
      redirect: 'manual',
    });
    assert.equal(noCsrf.status, 403);
    assert.equal(((await noCsrf.json()) as { code: string }).code, 'CSRF_INVALID');
    const badMcp = await fetch(`${http.url}/mcp`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json', 'x-csrf-token': 'forged' },
      body: '{}',
    });
    assert.equal(badMcp.status, 403);

    // The one-time link: single use.
    const link = `${http.url}/login?once=${http.loginNonce}`;
    const first = await fetch(link, { redirect: 'manual' });
    assert.equal(first.status, 303);
    const linkCookie = cookieOf(first);
    const again = await fetch(link, { redirect: 'manual' });
    assert.equal(again.status, 401, 'a login link works once');
    assert.equal(again.headers.get('set-cookie'), null);

    // The bearer header still works, with the scheme in any case.
    assert.equal(
      (await http.get('/runs', { auth: false, headers: { authorization: `BEARER ${TOKEN}` } })).status,
      200,
    );
    assert.equal(
      (await http.get('/runs', { auth: false, headers: { authorization: `Basic ${TOKEN}` } })).status,
      401,
    );

    // The session key lives in the data directory, owner-only.
    assert.equal(statSync(join(http.dataDir, 'session-key')).mode & 0o777, 0o600);
    assert.ok(readFileSync(join(http.dataDir, 'session-key'), 'utf8').trim().length >= 40);

    // A forged or tampered cookie is refused.
    const tampered = `${linkCookie.slice(0, -2)}xx`;
    assert.equal((await fetch(`${http.url}/runs`, { headers: { cookie: tampered } })).status, 401);

    // Logout with the CSRF token (as an HTML form would post it) ends the session.
    const csrf = await csrfFor(http.url, linkCookie);
    const out = await fetch(`${http.url}/logout`, {
      method: 'POST',
      headers: { cookie: linkCookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: csrf }),
      redirect: 'manual',
    });
    assert.equal(out.status, 303);
    assert.equal((await fetch(`${http.url}/runs`, { headers: { cookie: linkCookie } })).status, 401);
  } finally {
    await http.close();
    await dispose();
  }
});

/** The CSRF token pages embed for the session (read from the home page's meta tag). */
async function csrfFor(url: string, cookie: string): Promise<string> {
  const home = await fetch(`${url}/`, { headers: { accept: 'text/html', cookie } });
  const m = /<meta name="csrf-token" content="([^"]+)"/.exec(await home.text());
  assert.ok(m, 'pages carry the CSRF token');
  return m[1]!;
}
