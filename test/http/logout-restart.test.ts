/**
 * A logout survives a restart: the session is revoked in the store, so after the server restarts on
 * the same store and data directory (same session key) the logged-out cookie stays refused while a
 * session that did not log out still works — and a second server on the same store refuses it too.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { io as ioClient } from 'socket.io-client';
import type { Store } from '../../src/store/store.ts';
import { startNoemaHttp } from '../../src/surfaces/http/start.ts';
import { describeEachStore } from '../../src/testing/each-store.ts';
import { testTempDir } from '../../src/testing/temp-dir.ts';
import { TOKEN } from './helpers.ts';

function serve(store: Store, dataDir: string) {
  return startNoemaHttp({ store, host: '127.0.0.1', port: 0, portSetting: '--port', token: TOKEN, dataDir });
}

async function logIn(url: string): Promise<string> {
  const res = await fetch(`${url}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token: TOKEN, next: '/' }),
    redirect: 'manual',
  });
  const m = /noema_session=([^;]+)/.exec(res.headers.get('set-cookie') ?? '');
  assert.ok(m, 'a session cookie');
  return `noema_session=${m[1]}`;
}

async function logOut(url: string, cookie: string): Promise<void> {
  const home = await fetch(`${url}/`, { headers: { accept: 'text/html', cookie } });
  const csrf = /<meta name="csrf-token" content="([^"]+)"/.exec(await home.text())?.[1];
  assert.ok(csrf, 'pages carry the CSRF token');
  const out = await fetch(`${url}/logout`, {
    method: 'POST',
    headers: { cookie, 'x-csrf-token': csrf },
    redirect: 'manual',
  });
  assert.equal(out.status, 303);
}

/** Whether a Socket.IO connection presenting the cookie (from the server's own origin) is accepted. */
async function socketAccepts(url: string, cookie: string): Promise<boolean> {
  const socket = ioClient(url, {
    transports: ['websocket'],
    extraHeaders: { cookie },
    reconnection: false,
    timeout: 5_000,
  });
  try {
    return await new Promise<boolean>((resolve) => {
      socket.once('connect', () => resolve(true));
      socket.once('connect_error', () => resolve(false));
    });
  } finally {
    socket.close();
  }
}

const status = async (url: string, cookie: string) =>
  (await fetch(`${url}/runs`, { headers: { cookie } })).status;

describeEachStore('browser logout', (factory) => {
  test('a logged-out cookie stays refused after a restart on the same store, and in other processes', async () => {
    await factory.withStore(async ({ store }) => {
      const dataDir = testTempDir('noema-logout-');
      let first = await serve(store, dataDir);
      const other = await serve(store, dataDir);
      try {
        const out = await logIn(first.url);
        const kept = await logIn(first.url);
        assert.equal(await status(first.url, out), 200);
        assert.equal(await status(other.url, out), 200, 'the other server accepts it before the logout');
        await logOut(first.url, out);
        assert.equal(await status(first.url, out), 401);
        // The other server's Socket.IO handshake reads the revocation from the store (asked first,
        // before any HTTP request there could have taught that server of it).
        assert.equal(
          await socketAccepts(other.url, out),
          false,
          'the other server’s Socket.IO sees the logout',
        );
        assert.equal(await socketAccepts(other.url, kept), true);
        assert.equal(await status(other.url, out), 401, 'the other server sees the logout');

        await first.close();
        first = await serve(store, dataDir);
        assert.equal(await status(first.url, out), 401, 'refused after the restart');
        assert.equal(await status(first.url, kept), 200, 'a session that did not log out survives');
      } finally {
        await first.close();
        await other.close();
      }
    });
  });
});
