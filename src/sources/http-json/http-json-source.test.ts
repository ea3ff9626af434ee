/** The http_json source: success, every failure class, and redaction of secrets in every row. */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import type { Store } from '../../store/store.ts';
import { describeEachStore } from '../../testing/each-store.ts';
import { getSourceInvocation, invokeSource, putJsonSchema, putResponseSource } from '../index.ts';

const SECRET = 'tok-very-secret-7f3a9c21';

/** Paths the fixture served, in order. */
const served: string[] = [];

/** A server whose behaviour is picked by the path. */
async function fixture(): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    served.push(req.url ?? '/');
    let body = '';
    req.on('data', (d) => {
      body += d;
    });
    req.on('end', () => {
      const path = req.url ?? '/';
      if (path === '/ok') {
        res.writeHead(200, { 'content-type': 'application/json', 'x-toy': 'yes' });
        res.end(JSON.stringify({ status: 'dispensed', remaining: 0, echo: JSON.parse(body) }));
      } else if (path === '/boom') {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: 'machine jammed' }));
      } else if (path === '/moved') {
        res.writeHead(302, { location: '/ok' });
        res.end();
      } else if (path === '/html') {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<html>not json</html>');
      } else if (path === '/zip') {
        // A binary body with NUL bytes, which PostgreSQL text columns refuse.
        res.writeHead(200, { 'content-type': 'application/zip' });
        res.end(Buffer.from([0x50, 0x4b, 0x00, 0x01]));
      } else if (path === '/nul-json') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ name: 'a\u0000b' }));
      } else if (path === '/leaky') {
        // Echoes the credentials it received, as a careless upstream would.
        res.writeHead(200, { 'content-type': 'application/json', 'set-cookie': `session=${SECRET}` });
        res.end(JSON.stringify({ saw: req.headers.authorization, note: `token was ${SECRET}` }));
      } else if (path === '/slow') {
        setTimeout(() => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end('{}');
        }, 2_000).unref();
      } else {
        res.writeHead(404);
        res.end();
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

const source = (store: Store, path: string, extra: Record<string, unknown> = {}) =>
  putResponseSource(store, {
    version: 1,
    label: 'toy_vending_machine',
    interface: { name: 'http_json', method: 'POST', url_env: 'TOY_URL', path, timeout_ms: 5000, ...extra },
  });

async function allStoredText(store: Store): Promise<string> {
  const tables = ['source_invocations', 'llm_calls', 'response_sources'];
  const parts: string[] = [];
  for (const t of tables) parts.push(JSON.stringify(await store.all(`SELECT * FROM ${t}`)));
  return parts.join('\n');
}

describeEachStore('http_json source', (factory) => {
  test('a 200 JSON reply succeeds and records request, status, headers, body and duration', async () => {
    const { store, dispose } = await factory.open();
    const { url, server } = await fixture();
    try {
      const src = await source(store, '/ok');
      const schema = await putJsonSchema(store, { type: 'object', required: ['status'] });
      const out = await invokeSource(store, {
        source: src,
        request: { machine_id: 'vending_machine', button: 'C' },
        kind: 'model_elected_tool',
        resultSchema: schema,
        env: { TOY_URL: url },
        links: { tool_name: 'buy_candy' },
      });
      assert.equal(out.ok, true, out.error?.message);
      const inv = await getSourceInvocation(store, out.source_invocation_id);
      assert.equal(inv.status, 'succeeded');
      assert.equal(inv.http_status, 200);
      assert.equal(inv.validation_status, 'valid');
      assert.equal(inv.tool_name, 'buy_candy');
      assert.deepEqual(inv.request_json, { machine_id: 'vending_machine', button: 'C' });
      assert.equal((inv.response_json as { status: string }).status, 'dispensed');
      assert.equal((inv.response_headers as Record<string, string>)['x-toy'], 'yes');
      assert.equal(typeof inv.duration_ms, 'number');
      assert.equal(inv.llm_call_id, null);
    } finally {
      server.close();
      await dispose();
    }
  });

  test('HTTP 500 fails and keeps the error body; a redirect fails unfollowed; non-JSON and schema-invalid bodies fail with their classes', async () => {
    const { store, dispose } = await factory.open();
    const { url, server } = await fixture();
    try {
      const env = { TOY_URL: url };
      const boom = await invokeSource(store, {
        source: await source(store, '/boom'),
        request: {},
        kind: 'ambient_context',
        env,
      });
      assert.equal(boom.failure_class, 'http_status');
      const inv = await getSourceInvocation(store, boom.source_invocation_id);
      assert.equal(inv.status, 'failed');
      assert.equal(inv.http_status, 500);
      assert.deepEqual(inv.response_json, { error: 'machine jammed' });
      assert.equal(inv.response_text, '{"error":"machine jammed"}');

      // A redirect is the upstream's answer: recorded as it came, never followed.
      served.length = 0;
      const moved = await invokeSource(store, {
        source: await source(store, '/moved'),
        request: {},
        kind: 'ambient_context',
        env,
      });
      assert.equal(moved.failure_class, 'http_status');
      assert.equal((await getSourceInvocation(store, moved.source_invocation_id)).http_status, 302);
      assert.deepEqual(served, ['/moved'], 'the redirect target was never called');

      const html = await invokeSource(store, {
        source: await source(store, '/html'),
        request: {},
        kind: 'ambient_context',
        env,
      });
      assert.equal(html.failure_class, 'non_json');
      assert.equal(
        (await getSourceInvocation(store, html.source_invocation_id)).response_text,
        '<html>not json</html>',
      );

      const schema = await putJsonSchema(store, { type: 'object', required: ['temperature_f'] });
      const bad = await invokeSource(store, {
        source: await source(store, '/ok'),
        request: {},
        kind: 'ambient_context',
        resultSchema: schema,
        env,
      });
      assert.equal(bad.failure_class, 'schema_invalid');
      const badInv = await getSourceInvocation(store, bad.source_invocation_id);
      assert.equal(badInv.validation_status, 'invalid');
      assert.equal(
        (badInv.response_json as { status: string }).status,
        'dispensed',
        'the invalid body is kept',
      );
    } finally {
      server.close();
      await dispose();
    }
  });

  test('NUL characters in a response are recorded as U+FFFD and the call finishes with its own class', async () => {
    const { store, dispose } = await factory.open();
    const { url, server } = await fixture();
    try {
      const env = { TOY_URL: url };
      const zip = await invokeSource(store, {
        source: await source(store, '/zip'),
        request: {},
        kind: 'ambient_context',
        env,
      });
      assert.equal(zip.failure_class, 'non_json');
      const inv = await getSourceInvocation(store, zip.source_invocation_id);
      assert.equal(inv.status, 'failed');
      assert.equal(inv.failure_class, 'non_json');
      assert.equal(inv.response_text, 'PK\uFFFD\u0001');

      const named = await invokeSource(store, {
        source: await source(store, '/nul-json'),
        request: { note: 'x\u0000y' },
        kind: 'ambient_context',
        env,
      });
      assert.equal(named.ok, true, named.error?.message);
      assert.deepEqual(named.output, { name: 'a\uFFFDb' });
      const namedInv = await getSourceInvocation(store, named.source_invocation_id);
      assert.equal(namedInv.status, 'succeeded');
      assert.deepEqual(namedInv.response_json, { name: 'a\uFFFDb' });
      assert.deepEqual(namedInv.request_json, { note: 'x\uFFFDy' });
    } finally {
      server.close();
      await dispose();
    }
  });

  test('timeouts, refused connections and unset URLs fail as timeout, network and not_configured', async () => {
    const { store, dispose } = await factory.open();
    const { url, server } = await fixture();
    try {
      const slow = await invokeSource(store, {
        source: await source(store, '/slow', { timeout_ms: 100 }),
        request: {},
        kind: 'ambient_context',
        env: { TOY_URL: url },
      });
      assert.equal(slow.failure_class, 'timeout');
      const refused = await invokeSource(store, {
        source: await source(store, '/ok'),
        request: {},
        kind: 'ambient_context',
        env: { TOY_URL: 'http://127.0.0.1:9' },
      });
      assert.equal(refused.failure_class, 'network');
      const unset = await invokeSource(store, {
        source: await source(store, '/ok'),
        request: {},
        kind: 'ambient_context',
        env: {},
      });
      assert.equal(unset.failure_class, 'not_configured');
      assert.equal(unset.error?.code, 'SOURCE_NOT_CONFIGURED');
      assert.equal((await getSourceInvocation(store, unset.source_invocation_id)).status, 'failed');
    } finally {
      server.close();
      await dispose();
    }
  });

  test('configured secrets and credential headers appear nowhere in any stored row', async () => {
    const { store, dispose } = await factory.open();
    const { url, server } = await fixture();
    try {
      const out = await invokeSource(store, {
        source: await source(store, '/leaky', { bearer_token_env: 'TOY_URL_TOKEN' }),
        request: { note: `my key is ${SECRET}`, api_key: 'abc', authorization: 'Basic xyz' },
        kind: 'model_elected_tool',
        env: { TOY_URL: url, TOY_URL_TOKEN: SECRET },
      });
      assert.equal(out.ok, true, out.error?.message);
      assert.deepEqual(out.output, { saw: 'Bearer [REDACTED]', note: 'token was [REDACTED]' });
      const inv = await getSourceInvocation(store, out.source_invocation_id);
      assert.equal((inv.response_json as { saw: string }).saw, 'Bearer [REDACTED]');
      assert.equal((inv.request_json as { api_key: string }).api_key, '[REDACTED]');
      assert.equal((inv.response_headers as Record<string, string>)['set-cookie'], '[REDACTED]');
      const everything = await allStoredText(store);
      assert.equal(everything.includes(SECRET), false, 'the secret string is stored nowhere');
      assert.equal(everything.includes('Basic xyz'), false);
    } finally {
      server.close();
      await dispose();
    }
  });

  test('a definition naming any token variable but <url_env>_TOKEN is not_configured and sends nothing', async () => {
    const { store, dispose } = await factory.open();
    const { url, server } = await fixture();
    let requests = 0;
    server.on('request', () => {
      requests += 1;
    });
    try {
      const out = await invokeSource(store, {
        source: await source(store, '/leaky', { bearer_token_env: 'NOEMA_LLM_API_KEY' }),
        request: {},
        kind: 'model_elected_tool',
        env: { TOY_URL: url, NOEMA_LLM_API_KEY: SECRET },
      });
      assert.equal(out.ok, false);
      assert.equal(out.error?.code, 'SOURCE_NOT_CONFIGURED');
      assert.match(out.error?.hint ?? '', /TOY_URL_TOKEN/);
      assert.equal(requests, 0, 'no request reached the upstream');
      assert.equal((await getSourceInvocation(store, out.source_invocation_id)).status, 'failed');
      assert.equal((await allStoredText(store)).includes(SECRET), false);
    } finally {
      server.close();
      await dispose();
    }
  });
});

// One store suffices: the refusal happens in validation, before any SQL (storage is covered above on both).
test('a definition with an invalid interface is refused and nothing is stored', async () => {
  const { openTestStore } = await import('../../testing/stores.ts');
  const { store, dispose } = await openTestStore('sqlite');
  try {
    await assert.rejects(
      putResponseSource(store, {
        version: 1,
        interface: { name: 'http_json', method: 'POST', url: 'http://evil', path: '/x' },
      }),
      (e: Error & { code?: string }) => e.code === 'INVALID_INPUT',
    );
    await assert.rejects(
      putResponseSource(store, { version: 1, interface: { name: 'smoke_signals' } }),
      (e: Error & { code?: string }) => e.code === 'UNKNOWN_SOURCE_INTERFACE',
    );
    assert.deepEqual(await store.all('SELECT hash FROM response_sources'), []);
    const a = await source(store, '/ok');
    const b = await source(store, '/ok');
    assert.equal(a.hash, b.hash, 'putting the same definition twice is idempotent');
    assert.equal((await store.all('SELECT hash FROM response_sources')).length, 1);
  } finally {
    await dispose();
  }
});
