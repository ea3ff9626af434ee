/**
 * Every answer of the HTTP surface carries the hardening headers and its request id, once: JSON,
 * pages, error envelopes, redirects, assets and event streams — the headers are set on Node's
 * response before the route answers, and must survive every way a route answers.
 * Pinned to SQLite: response headers do not depend on the store.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createEngine } from '../../src/engine/index.ts';
import { SECURITY_HEADERS } from '../../src/surfaces/http/security-headers.ts';
import { humanGraph, registerKit } from '../../src/testing/engine-kit.ts';
import { openTestStore } from '../../src/testing/stores.ts';
import { startTestHttp, type TestHttp, TOKEN } from './helpers.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let http: TestHttp;
let runId: string;
let dispose: () => Promise<void>;

before(async () => {
  const t = await openTestStore('sqlite');
  dispose = t.dispose;
  const engine = createEngine(t.store, { fanOut: false });
  registerKit(engine);
  runId = (await engine.createRun(humanGraph)).run_id;
  http = await startTestHttp(t.store);
});

after(async () => {
  await http.close();
  await dispose();
});

interface Case {
  what: string;
  path: string;
  method?: string;
  auth?: boolean;
  headers?: Record<string, string>;
  status: number;
  type: RegExp;
}

const cases = (): Case[] => [
  { what: 'a JSON answer', path: '/healthz', status: 200, type: /^application\/json/ },
  { what: 'a catalog list', path: '/source-invocations', status: 200, type: /^application\/json/ },
  { what: 'an unknown record', path: '/source-invocations/none', status: 404, type: /^application\/json/ },
  { what: 'no token', path: '/source-invocations', auth: false, status: 401, type: /^application\/json/ },
  {
    what: 'a method not allowed',
    path: '/healthz',
    method: 'DELETE',
    status: 405,
    type: /^application\/json/,
  },
  { what: 'a page', path: '/login', auth: false, status: 200, type: /^text\/html/ },
  {
    what: 'a redirect to the login page',
    path: '/runs',
    auth: false,
    headers: { accept: 'text/html' },
    status: 303,
    type: /.*/,
  },
  { what: 'an asset', path: '/favicon.ico', auth: false, status: 200, type: /^image\// },
  { what: 'an event stream', path: `/runs/${runId}/events`, status: 200, type: /^text\/event-stream/ },
];

test('every kind of answer carries the hardening headers and one request id', async () => {
  for (const c of cases()) {
    const aborted = new AbortController();
    const res = await fetch(`${http.url}${c.path}`, {
      method: c.method ?? 'GET',
      headers: { ...(c.auth === false ? {} : { authorization: `Bearer ${TOKEN}` }), ...c.headers },
      redirect: 'manual',
      signal: aborted.signal,
    });
    try {
      assert.equal(res.status, c.status, c.what);
      assert.match(res.headers.get('content-type') ?? '', c.type, c.what);
      for (const [name, value] of Object.entries(SECURITY_HEADERS))
        assert.equal(res.headers.get(name), value, `${c.what}: ${name}`);
      const requestId = res.headers.get('x-request-id') ?? '';
      assert.match(requestId, UUID, `${c.what}: one request id`);
      if (c.status >= 400) {
        const envelope = (await res.json()) as { request_id: string };
        assert.equal(envelope.request_id, requestId, `${c.what}: the envelope's request id`);
      }
    } finally {
      // The event stream stays open: its headers are all this reads of it.
      aborted.abort();
    }
  }
});

test('a correlation id is echoed once, beside the request id', async () => {
  const res = await http.get('/healthz', { headers: { 'x-correlation-id': 'trace-42' } });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('x-correlation-id'), 'trace-42');
  assert.match(res.headers.get('x-request-id') ?? '', UUID);
  assert.equal(res.headers.get('content-security-policy'), SECURITY_HEADERS['content-security-policy']);
});

test('a request the app cannot take is still answered with the envelope', async () => {
  const bad = await http.get('/healthz', { headers: { 'x-correlation-id': 'x'.repeat(200) } });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.code, 'INVALID_INPUT');
  assert.equal(bad.body.request_id, bad.headers.get('x-request-id'));
  assert.equal(bad.headers.get('x-frame-options'), 'DENY');
  assert.equal(bad.headers.get('x-correlation-id'), null, 'a refused correlation id is not echoed');
});
