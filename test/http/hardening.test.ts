/**
 * HTTP faults and bad configuration (issue 9): a port in use names its setting (exit 2) for serve
 * and the dev servers; a whitespace-only NOEMA_TOKEN is refused; oversized bodies get the 413
 * envelope on /mcp; client disconnects are not logged; a store that disappears is 503 everywhere,
 * logged once.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { test } from 'node:test';
import pg from 'pg';
import { runCli, startCli } from '../../src/testing/cli.ts';
import { describeEachStore } from '../../src/testing/each-store.ts';
import { testPostgresUrl } from '../../src/testing/stores.ts';
import { testTempDir } from '../../src/testing/temp-dir.ts';
import { TOKEN } from './helpers.ts';

function assertOneLineError(r: { code: number | null; stderr: string }, pattern: RegExp): void {
  assert.equal(r.code, 2, r.stderr);
  const lines = r.stderr.trim().split('\n');
  assert.equal(lines.length, 1, r.stderr);
  assert.match(lines[0]!, pattern);
}

test('a port in use is one line naming --port or NOEMA_PORT, exit 2: serve, dev toys, dev scripted-model', async () => {
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  const port = String((blocker.address() as { port: number }).port);
  const dir = testTempDir('noema-port-');
  const script = join(dir, 'script.json');
  await import('node:fs').then((fs) =>
    fs.writeFileSync(script, JSON.stringify({ rules: [{ reply: { text: 'hi' } }] })),
  );
  try {
    const env = { NOEMA_DB: join(dir, 'n.db'), NOEMA_TOKEN: TOKEN };
    assertOneLineError(
      await runCli(['serve', '--port', port], env),
      new RegExp(`--port is invalid: port ${port} is already in use`),
    );
    assertOneLineError(
      await runCli(['serve'], { ...env, NOEMA_PORT: port }),
      /NOEMA_PORT is invalid: .* already in use/,
    );
    assertOneLineError(await runCli(['dev', 'toys', '--port', port]), /--port is invalid: .* already in use/);
    assertOneLineError(
      await runCli(['dev', 'scripted-model', '--script', script, '--port', port]),
      /--port is invalid: .* already in use/,
    );
  } finally {
    blocker.close();
  }
});

test('a whitespace-only or padded NOEMA_TOKEN is refused at start, naming it', async () => {
  const dir = testTempDir('noema-tok-');
  assertOneLineError(
    await runCli(['serve', '--port', '0'], { NOEMA_DB: join(dir, 'n.db'), NOEMA_TOKEN: ' '.repeat(20) }),
    /NOEMA_TOKEN is invalid: it is only whitespace/,
  );
  assertOneLineError(
    await runCli(['serve', '--port', '0'], { NOEMA_DB: join(dir, 'n.db'), NOEMA_TOKEN: ` ${TOKEN}` }),
    /NOEMA_TOKEN is invalid/,
  );
});

describeEachStore('HTTP faults on a running server', (factory) => {
  test('bodies over 4 MiB get the 413 envelope on /mcp; client disconnects are not logged as failures', async () => {
    const { url, dispose } = await factory.open();
    const server = startCli(['serve', '--port', '0'], {
      NOEMA_DB: url,
      NOEMA_TOKEN: TOKEN,
      NOEMA_DATA_DIR: testTempDir('noema-h-'),
    });
    try {
      const [, base] = await server.waitFor(/serving on (http:\/\/\S+)/);
      const call = (body: string | ReadableStream) =>
        fetch(`${base}/mcp`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${TOKEN}`,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
          },
          body,
          duplex: 'half',
        } as RequestInit);
      const text = 'x'.repeat(4 * 1024 * 1024);
      const big = await call(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'branchmind_init', arguments: { workspace: text } },
        }),
      );
      assert.equal(big.status, 413);
      const envelope = (await big.json()) as { code: string; request_id: string };
      assert.equal(envelope.code, 'PAYLOAD_TOO_LARGE');
      assert.equal(big.headers.get('x-request-id'), envelope.request_id);
      const chunked = await call(
        new ReadableStream({
          start(c) {
            for (let i = 0; i < 5; i++) c.enqueue(new TextEncoder().encode('x'.repeat(1024 * 1024)));
            c.close();
          },
        }),
      );
      assert.equal(chunked.status, 413, 'also without content-length');
      const anonymous = await fetch(`${base}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: text,
      });
      assert.equal(anonymous.status, 401, 'an unauthenticated upload is refused before its body is read');
      await anonymous.body?.cancel();
      await chunked.body?.cancel();

      // Clients that go away mid-request or mid-stream.
      for (let i = 0; i < 3; i++) {
        await new Promise<void>((resolve) => {
          const port = Number(new URL(base as string).port);
          const sock = connect(port, '127.0.0.1', () => {
            sock.write(
              `POST /mcp HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${TOKEN}\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{"jsonrpc":`,
            );
            setTimeout(() => {
              sock.destroy();
              resolve();
            }, 50);
          });
        });
      }
      const aborted = new AbortController();
      const page = await fetch(`${base}/source-invocations`, {
        headers: { authorization: `Bearer ${TOKEN}` },
        signal: aborted.signal,
      });
      aborted.abort();
      await page.body?.cancel().catch(() => {});
      const ok = await fetch(`${base}/healthz`);
      assert.equal(ok.status, 200);
      assert.doesNotMatch(server.stderr(), /noema: .*(failed|error)/i, server.stderr());
    } finally {
      server.child.kill('SIGKILL');
      await dispose();
    }
  });

  test('a store that disappears while serving is 503 STORE_UNAVAILABLE on every route, logged once per incident', {
    skip:
      factory.kind === 'sqlite'
        ? 'an open SQLite file cannot disappear under its process (an unlinked file stays readable), so there is no outage to serve'
        : false,
  }, async () => {
    const { url, dispose } = await factory.open();
    const server = startCli(['serve', '--port', '0'], {
      NOEMA_DB: url,
      NOEMA_TOKEN: TOKEN,
      NOEMA_DATA_DIR: testTempDir('noema-gone-'),
    });
    const auth = { authorization: `Bearer ${TOKEN}` };
    try {
      const [, base] = await server.waitFor(/serving on (http:\/\/\S+)/);
      assert.equal((await fetch(`${base}/healthz`)).status, 200);
      const admin = new pg.Client({ connectionString: testPostgresUrl() });
      await admin.connect();
      try {
        await admin.query(
          `DROP DATABASE ${pg.escapeIdentifier(new URL(url).pathname.slice(1))} WITH (FORCE)`,
        );
      } finally {
        await admin.end();
      }
      for (let round = 0; round < 3; round++) {
        for (const path of [
          '/healthz',
          '/source-invocations',
          '/runs',
          `/runs/x`,
          `/graphs/hash/${'0'.repeat(64)}`,
        ]) {
          const res = await fetch(`${base}${path}`, { headers: auth }).catch((err: Error) => {
            // Serve must outlive its store: say what it printed if it did not.
            throw new Error(
              `${path}: ${err.message} (serve exited ${server.child.exitCode}); stderr: ${server.stderr()}`,
            );
          });
          const body = (await res.json()) as { code: string };
          assert.equal(res.status, 503, `${path}: ${JSON.stringify(body)}`);
          assert.equal(body.code, 'STORE_UNAVAILABLE');
        }
        // Answers that never touch the store do not end the incident (no "answers again" line).
        assert.equal((await fetch(`${base}/runs`)).status, 401);
        assert.equal((await fetch(`${base}/`, { headers: auth })).status, 200);
      }
      const lines = server
        .stderr()
        .trim()
        .split('\n')
        .filter((l) => l.startsWith('noema:'));
      // One line from the HTTP surface for the incident, whatever number of requests failed; the
      // pool may add its own single line for the connection it lost, the run reclaimer its own
      // single line for its passes that failed, and the store's background batches of the search
      // index one for theirs.
      const surface = lines.filter((l) => /the store is unavailable/.test(l));
      assert.equal(surface.length, 1, server.stderr());
      const pool = lines.filter((l) => /PostgreSQL pool at .*failed/.test(l));
      const reclaim = lines.filter((l) => /reclaiming runs on .*failed/.test(l));
      const batches = lines.filter((l) => /a batch of the full-text indexes' queues failed/.test(l));
      assert.ok(pool.length <= 1 && reclaim.length <= 1 && batches.length <= 1, server.stderr());
      assert.equal(
        lines.length,
        surface.length + pool.length + reclaim.length + batches.length,
        server.stderr(),
      );
      assert.doesNotMatch(server.stderr(), /\n\s+at /, 'no stack traces');
    } finally {
      server.child.kill('SIGKILL');
      await dispose().catch(() => {});
    }
  });
});
