/**
 * An idle server carries only what its requests have needed: after start and a `/healthz`, no module
 * of Socket.IO (engine.io, ws), prom-client (and the OpenTelemetry API it loads), the MCP SDK (and
 * zod), Ajv, the pg driver (on SQLite), the flowchart, world or agent runtimes, the route modules
 * beyond `/healthz` and `/metrics`, the pages or the pictures is loaded — each is imported when a
 * request first needs it. The first requests to a route loaded on demand, made at once, are all
 * answered as usual. SQLite only: the pg driver is what a PostgreSQL store loads at start.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';

const root = new URL('../../', import.meta.url).href;

const child = `
import { registerHooks } from 'node:module';
import { join } from 'node:path';
const seen = [];
registerHooks({ load(url, ctx, next) { seen.push(url); return next(url, ctx); } });
const { openStore } = await import(${JSON.stringify(`${root}src/store/index.ts`)});
const { migrations } = await import(${JSON.stringify(`${root}src/app/migrations.ts`)});
const { testTempDir } = await import(${JSON.stringify(`${root}src/testing/temp-dir.ts`)});
const { startNoemaHttp } = await import(${JSON.stringify(`${root}src/surfaces/http/start.ts`)});
const dir = testTempDir('noema-idle-');
const store = await openStore({ kind: 'sqlite', path: join(dir, 'noema.db') }, { migrations });
const token = 't'.repeat(32);
const http = await startNoemaHttp({
  store, host: '127.0.0.1', port: 0, portSetting: '--port', token, dataDir: dir, env: {},
  reclaim: { intervalMs: 60_000 },
});
const res = await fetch(http.url + '/healthz');
await res.text();
const idle = [...seen];
// Three first requests at once to routes loaded on demand: a catalog list, the route index, a 404.
const auth = { authorization: 'Bearer ' + token };
const first = await Promise.all(
  ['/worlds', '/', '/no-such-route'].map(async (path) => {
    const r = await fetch(http.url + path, { headers: auth });
    return { path, status: r.status, body: await r.json() };
  }),
);
await http.close();
await store.close();
process.stdout.write(JSON.stringify({ status: res.status, idle, first }));
`;

let result: ReturnType<typeof start> | undefined;
/** The server's run, once for both tests. */
const run = () => {
  result ??= start();
  return result;
};

function start() {
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', child], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as {
    status: number;
    idle: string[];
    first: Array<{ path: string; status: number; body: Record<string, unknown> }>;
  };
}

test('an idle server has loaded none of what only some requests need', () => {
  const { status, idle } = run();
  assert.equal(status, 200);
  assert.ok(
    idle.some((u) => u.includes('/src/surfaces/http/start.ts')),
    'the server was started',
  );
  const heavy = idle.filter(
    (u) =>
      /node_modules\/(socket\.io|engine\.io|ws|prom-client|@opentelemetry|@modelcontextprotocol|zod|ajv|ajv-formats|pg|@dagrejs)\//.test(
        u,
      ) ||
      /\/src\/(runtimes\/(agent|world|flow)\/(index|runtime|runs)\.ts|surfaces\/http\/(routes\/index\.ts|pages\/|flow\/)|surfaces\/pictures\/(index|graph)\.ts)/.test(
        u,
      ),
  );
  assert.deepEqual(heavy, []);
});

test('the first requests to routes loaded on demand, made at once, are answered as usual', () => {
  const { first } = run();
  const byPath = Object.fromEntries(first.map((f) => [f.path, f]));
  assert.equal(byPath['/worlds']?.status, 200);
  assert.ok(Array.isArray(byPath['/worlds']?.body.items), JSON.stringify(byPath['/worlds']?.body));
  assert.equal(byPath['/']?.status, 200);
  const routes = byPath['/']?.body.routes as string[];
  assert.ok(routes.includes('GET /healthz'), 'the index lists the routes served from the start');
  assert.ok(routes.includes('GET /worlds'), 'and those loaded on demand');
  assert.equal(byPath['/no-such-route']?.status, 404);
  assert.equal(byPath['/no-such-route']?.body.code, 'NOT_FOUND');
});
