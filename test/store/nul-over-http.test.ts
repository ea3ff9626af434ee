/**
 * Text the store cannot hold (NUL) in a path parameter, filter or cursor is a 400 INVALID_INPUT
 * envelope on every backend — the same answer on SQLite and PostgreSQL, never a 500 carrying the
 * database's message — and the server keeps serving.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startCli } from '../../src/testing/cli.ts';
import { describeEachStore } from '../../src/testing/each-store.ts';
import { testTempDir } from '../../src/testing/temp-dir.ts';

const TOKEN = 'nul-test-token-0123456789';

describeEachStore('NUL in request parameters', (factory) => {
  test('a record id holding NUL is 404 (no record can have it), a filter or cursor holding NUL is 400 INVALID_INPUT; never 500', async () => {
    const { url, dispose } = await factory.open();
    const server = startCli(['serve', '--port', '0'], {
      NOEMA_DB: url,
      NOEMA_TOKEN: TOKEN,
      NOEMA_DATA_DIR: testTempDir('noema-nul-'),
    });
    try {
      const [, base] = await server.waitFor(/serving on (http:\/\/127\.0\.0\.1:\d+)/);
      const get = async (path: string) => {
        const res = await fetch(`${base}${path}`, { headers: { Authorization: `Bearer ${TOKEN}` } });
        return { status: res.status, body: (await res.json()) as Record<string, unknown> };
      };
      // The catalog answers a record id it can never hold as "no such record", the way SQLite would;
      // values the store would have to compare are refused as bad input.
      for (const [path, status, code] of [
        ['/source-invocations/abc%00def', 404, 'NOT_FOUND'],
        ['/llm-calls/abc%00def', 404, 'NOT_FOUND'],
        ['/response-sources/hash/ab%00cd', 404, 'NOT_FOUND'],
        ['/attempts/att%00/source-invocations', 404, 'NOT_FOUND'],
        ['/source-invocations?run_id=r%00', 400, 'INVALID_INPUT'],
        ['/source-invocations?cursor=%00', 400, 'INVALID_INPUT'],
      ] as const) {
        const r = await get(path);
        assert.equal(r.status, status, `${path}: ${JSON.stringify(r.body)}`);
        assert.equal(r.body.code, code, path);
        assert.equal(r.body.retryable, false, path);
        assert.doesNotMatch(
          String(r.body.message),
          /0x00|UTF8|encoding/i,
          `${path}: the database's words leaked`,
        );
      }
      // Still serving, and nothing was logged as a server failure.
      assert.equal((await get('/source-invocations')).status, 200);
      assert.doesNotMatch(server.stderr(), /failed \(request/);
    } finally {
      server.child.kill('SIGKILL');
      await server.exited;
      await dispose();
    }
  });
});
