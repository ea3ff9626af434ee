/**
 * A request body is read once, under the limit, and handed to whatever reads it — a route's JSON, a
 * form, the MCP transport — as `Request.text()` would have read it, without rebuilding the request
 * around it. And an MCP tool call validates its arguments with the validator its tool compiled once.
 * Pinned to SQLite: what is checked is how the HTTP surface reads bodies, which no store touches
 * (the routes' store work runs on both stores in their own suites).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { schemas } from '../../src/core/schema-registry.ts';
import { WORLD_PATCH_SCHEMA_HASH } from '../../src/runtimes/world/index.ts';
import { openTestStore } from '../../src/testing/stores.ts';
import { startTestHttp, TOKEN } from './helpers.ts';

const JSON_HEADERS = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };

test('a JSON body is read as Request.text() reads it: a leading byte order mark dropped, bad bytes replaced', async () => {
  const ts = await openTestStore('sqlite');
  const http = await startTestHttp(ts.store);
  try {
    const post = async (body: Uint8Array) => {
      const res = await fetch(`${http.url}/sessions`, { method: 'POST', headers: JSON_HEADERS, body });
      // The answer without its request id (every answer has its own).
      const { request_id: _id, ...error } = (await res.json()) as {
        code: string;
        message: string;
        request_id: string;
      };
      return { status: res.status, error };
    };
    const plain = await post(Buffer.from('{"user_id":"u"}'));
    // With the mark, the same answer: the route read the object (and refused its missing agent),
    // not a body that is not JSON.
    const marked = await post(
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"user_id":"u"}')]),
    );
    assert.equal(plain.status, 400);
    assert.deepEqual(marked, plain);
    assert.doesNotMatch(marked.error.message, /not valid JSON/);
    // A byte that is no UTF-8 inside a string is read as U+FFFD, as before: still JSON, its
    // user_id refused by the field's pattern.
    const bad = await post(
      Buffer.concat([Buffer.from('{"user_id":"'), Buffer.from([0xff]), Buffer.from('"}')]),
    );
    assert.equal(bad.status, 400);
    assert.doesNotMatch(bad.error.message, /not valid JSON/);
    assert.match(JSON.stringify(bad.error), /"path":"\/user_id"/);
    // And a body that is not JSON is still refused as such.
    const notJson = await post(Buffer.from('{"user_id":'));
    assert.equal(notJson.status, 400);
    assert.match(notJson.error.message, /not valid JSON/);
  } finally {
    await http.close();
    await ts.dispose();
  }
});

test('a form body reaches the form reader once read under the limit (the login form)', async () => {
  const ts = await openTestStore('sqlite');
  const http = await startTestHttp(ts.store);
  try {
    const login = (token: string) =>
      fetch(`${http.url}/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token, next: '/worlds' }),
        redirect: 'manual',
      });
    const refused = await login('not-the-token');
    const accepted = await login(TOKEN);
    // The token was read from the form: the wrong one is refused, the right one signs in.
    assert.equal(refused.status, 401);
    assert.equal(accepted.status, 303);
    assert.equal(accepted.headers.get('location'), '/worlds');
    assert.match(accepted.headers.get('set-cookie') ?? '', /noema_session=/);
  } finally {
    await http.close();
    await ts.dispose();
  }
});

test('an MCP tool call over HTTP compiles no schema: its tool validates with the validator compiled once', async (t) => {
  const ts = await openTestStore('sqlite');
  const http = await startTestHttp(ts.store);
  try {
    const call = async (id: number) => {
      const res = await fetch(`${http.url}/mcp/world`, {
        method: 'POST',
        headers: { ...JSON_HEADERS, accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: { name: 'get_json_schema', arguments: { hash: WORLD_PATCH_SCHEMA_HASH } },
        }),
      });
      assert.equal(res.status, 200);
      const answer = (await res.json()) as {
        result: { isError?: boolean; structuredContent: { hash: string } };
      };
      assert.notEqual(answer.result.isError, true);
      assert.equal(answer.result.structuredContent.hash, WORLD_PATCH_SCHEMA_HASH);
    };
    await call(1);
    const compiled = t.mock.method(schemas, 'compile');
    for (let id = 2; id <= 4; id++) await call(id);
    assert.equal(compiled.mock.callCount(), 0);
  } finally {
    await http.close();
    await ts.dispose();
  }
});
