/**
 * Calls read back instead of made again: `succeededCallsOfAttempt` gives an attempt's succeeded
 * invocations of one kind, with the output each call returned, from real calls to a 127.0.0.1 server.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { test } from 'node:test';
import { describeEachStore } from '../../testing/each-store.ts';
import { serveDuringTests } from '../../testing/local-server.ts';
import { invokeSource, putResponseSource, succeededCallsOfAttempt } from '../index.ts';
import type { InvocationKind } from '../source.ts';

const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    if (req.url === '/boom') {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end('{"error":"down"}');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ path: req.url }));
  });
});
const base = serveDuringTests(server);

describeEachStore('calls read back', (factory) => {
  test('succeededCallsOfAttempt: the attempt’s succeeded calls of one kind, oldest first, with their outputs', async () => {
    await factory.withStore(async ({ store }) => {
      const sourceAt = (path: string) =>
        putResponseSource(store, {
          version: 1,
          interface: { name: 'http_json', method: 'POST', url_env: 'FIXTURE_URL', path, timeout_ms: 5000 },
        });
      const call = async (
        path: string,
        kind: InvocationKind,
        attempt_id: string,
        ambient_source_id: string,
      ) =>
        invokeSource(store, {
          source: await sourceAt(path),
          request: {},
          kind,
          links: {
            attempt_id,
            world_slug: 'w',
            attempted_turn: 1,
            workflow_hash: 'a'.repeat(64),
            ambient_source_id,
            workflow_subject_entity_id: ambient_source_id === 'inbox' ? 'bob' : null,
          },
          env: { FIXTURE_URL: base() },
        });
      const first = await call('/weather', 'ambient_context', 'att-1', 'weather');
      const failed = await call('/boom', 'ambient_context', 'att-1', 'pa');
      await call('/other', 'ambient_context', 'att-2', 'weather');
      await call('/tool', 'model_elected_tool', 'att-1', 'tool');
      const second = await call('/inbox', 'ambient_context', 'att-1', 'inbox');
      assert.equal(failed.ok, false);

      const got = await succeededCallsOfAttempt(store, 'att-1', 'ambient_context');
      assert.deepEqual(got, [
        {
          source_invocation_id: first.source_invocation_id,
          workflow_hash: 'a'.repeat(64),
          ambient_source_id: 'weather',
          workflow_subject_entity_id: null,
          output: { path: '/weather' },
        },
        {
          source_invocation_id: second.source_invocation_id,
          workflow_hash: 'a'.repeat(64),
          ambient_source_id: 'inbox',
          workflow_subject_entity_id: 'bob',
          output: { path: '/inbox' },
        },
      ]);
      assert.deepEqual(await succeededCallsOfAttempt(store, 'att-3', 'ambient_context'), []);
    });
  });
});
