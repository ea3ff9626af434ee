/** `noema serve` end to end: real process, real HTTP on 127.0.0.1, token guard, graceful shutdown. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { startCli } from '../../src/testing/cli.ts';
import { createTestLocation, selectedStores } from '../../src/testing/stores.ts';
import { testTempDir } from '../../src/testing/temp-dir.ts';

for (const kind of selectedStores()) {
  test(`serve [${kind}]: healthz is public, every other route needs the token, SIGTERM shuts down cleanly`, async () => {
    const location = await createTestLocation(kind);
    const dataDir = testTempDir('noema-serve-');
    const server = startCli(['serve', '--port', '0'], {
      NOEMA_DB: location.url,
      NOEMA_DATA_DIR: dataDir,
      NOEMA_TOKEN: '',
    });
    try {
      const [, url] = await server.waitFor(/serving on (http:\/\/127\.0\.0\.1:\d+)/);
      const [, token] = await server.waitFor(/shown once\): (\S+)/);
      assert.equal(readFileSync(join(dataDir, 'token'), 'utf8').trim(), token);
      const [, loginLink] = await server.waitFor(/browser: (\S+\/login\?once=\S+)/);
      const login = await fetch(loginLink as string, { redirect: 'manual' });
      assert.equal(login.status, 303, 'the printed one-time link logs a browser in');
      assert.match(login.headers.get('set-cookie') ?? '', /noema_session=/);

      const health = await fetch(`${url}/healthz`);
      assert.equal(health.status, 200);
      assert.deepEqual(await health.json(), { ok: true });

      const denied = await fetch(`${url}/`);
      assert.equal(denied.status, 401);
      const envelope = (await denied.json()) as Record<string, unknown>;
      assert.equal(envelope.code, 'UNAUTHORIZED');
      assert.equal(typeof envelope.request_id, 'string');
      assert.equal(denied.headers.get('x-request-id'), envelope.request_id);

      const wrong = await fetch(`${url}/`, { headers: { authorization: 'Bearer not-the-token-at-all' } });
      assert.equal(wrong.status, 401);

      const ok = await fetch(`${url}/`, { headers: { authorization: `Bearer ${token}` } });
      assert.equal(ok.status, 200);
      const index = (await ok.json()) as { routes: string[] };
      assert.ok(index.routes.includes('GET /healthz'));
      assert.ok(
        index.routes.includes('ANY /mcp') || index.routes.includes('POST /mcp'),
        index.routes.join(', '),
      );

      const tokenInUrl = await fetch(`${url}/?token=${token}`);
      assert.equal(tokenInUrl.status, 401, 'the token is accepted only in the Authorization header');

      const missing = await fetch(`${url}/no/such/route`, { headers: { authorization: `Bearer ${token}` } });
      assert.equal(missing.status, 404);
      assert.equal(((await missing.json()) as { code: string }).code, 'NOT_FOUND');

      server.child.kill('SIGTERM');
      assert.equal(await server.exited, 0);
      assert.match(server.stdout(), /received SIGTERM, shutting down/);
    } finally {
      server.child.kill('SIGKILL');
      await location.drop();
    }
  });
}

// One store suffices: the token lives in the data directory, whatever the store (serve runs on both above).
test('serve reuses the stored token on the next start and does not print it again', async () => {
  const dataDir = testTempDir('noema-serve-');
  const env = { NOEMA_DB: join(dataDir, 'n.db'), NOEMA_TOKEN: '' };
  const first = startCli(['serve', '--port', '0'], env);
  const [, token] = await first.waitFor(/shown once\): (\S+)/);
  first.child.kill('SIGINT');
  assert.equal(await first.exited, 0);
  const second = startCli(['serve', '--port', '0'], env);
  const [, url] = await second.waitFor(/serving on (http:\/\/127\.0\.0\.1:\d+)/);
  await second.waitFor(/server token: in /);
  assert.doesNotMatch(second.stdout(), /shown once/);
  const ok = await fetch(`${url}/`, { headers: { authorization: `Bearer ${token}` } });
  assert.equal(ok.status, 200);
  second.child.kill('SIGTERM');
  assert.equal(await second.exited, 0);
});
