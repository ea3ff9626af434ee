/**
 * Text the store cannot hold (NUL) in a path parameter, filter or cursor is a 400 INVALID_INPUT
 * envelope on every backend — the same answer on SQLite and PostgreSQL, never a 500 carrying the
 * database's message — and the server keeps serving.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { startCli } from '../../src/testing/cli.ts';
import { describeEachStore } from '../../src/testing/each-store.ts';

const TOKEN = 'nul-test-token-0123456789';

describeEachStore('NUL in request parameters', (factory) => {
  test('path parameters, filters and cursors holding NUL are 400 INVALID_INPUT, not 500', async () => {
    const { url, dispose } = await factory.open();
    const server = startCli(['serve', '--port', '0'], {
      NOEMA_DB: url,
      NOEMA_TOKEN: TOKEN,
      NOEMA_DATA_DIR: mkdtempSync(join(tmpdir(), 'noema-nul-')),
    });
    try {
      const [, base] = await server.waitFor(/serving on (http:\/\/127\.0\.0\.1:\d+)/);
      const get = async (path: string) => {
        const res = await fetch(`${base}${path}`, { headers: { Authorization: `Bearer ${TOKEN}` } });
        return { status: res.status, body: (await res.json()) as Record<string, unknown> };
      };
      for (const path of [
        '/source-invocations/abc%00def',
        '/llm-calls/abc%00def',
        '/attempts/att%00/source-invocations',
        '/source-invocations?run_id=r%00',
        '/source-invocations?cursor=%00',
        '/response-sources/hash/ab%00cd',
      ]) {
        const r = await get(path);
        assert.equal(r.status, 400, `${path}: ${JSON.stringify(r.body)}`);
        assert.equal(r.body.code, 'INVALID_INPUT', path);
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
