/**
 * An idle server carries only what its requests have needed: after start and a `/healthz`, no module
 * of Socket.IO (engine.io, ws), prom-client (and the OpenTelemetry API it loads) or the MCP SDK (and
 * zod) is loaded — each is imported when a request first needs it.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';

const root = new URL('../../', import.meta.url).href;

const child = `
import { registerHooks } from 'node:module';
const seen = [];
registerHooks({ load(url, ctx, next) { seen.push(url); return next(url, ctx); } });
const { openTestStore } = await import(${JSON.stringify(`${root}src/testing/stores.ts`)});
const { testTempDir } = await import(${JSON.stringify(`${root}src/testing/temp-dir.ts`)});
const { startNoemaHttp } = await import(${JSON.stringify(`${root}src/surfaces/http/start.ts`)});
const { store, dispose } = await openTestStore('sqlite');
const http = await startNoemaHttp({
  store, host: '127.0.0.1', port: 0, portSetting: '--port', token: 't'.repeat(32),
  dataDir: testTempDir('noema-idle-'), env: {},
});
const res = await fetch(http.url + '/healthz');
await res.text();
await http.close();
await dispose();
process.stdout.write(JSON.stringify({ status: res.status, seen }));
`;

test('an idle server has loaded neither Socket.IO, prom-client, OpenTelemetry nor the MCP SDK', () => {
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', child], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const { status, seen } = JSON.parse(r.stdout) as { status: number; seen: string[] };
  assert.equal(status, 200);
  const heavy = seen.filter((u) =>
    /node_modules\/(socket\.io|engine\.io|ws|prom-client|@opentelemetry|@modelcontextprotocol|zod)\//.test(u),
  );
  assert.deepEqual(heavy, []);
  assert.ok(
    seen.some((u) => u.includes('/src/surfaces/http/start.ts')),
    'the server was started',
  );
});
