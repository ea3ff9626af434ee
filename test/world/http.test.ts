/**
 * The world's REST JSON through the resource catalog (seed 004 Phase J): component kinds with
 * /hash/:hash and /uses, worlds, past turns, attempts linked to their source invocations, and
 * running a turn with POST — all behind the token.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { getWorld } from '../../src/runtimes/world/index.ts';
import { describeEachStore } from '../../src/testing/each-store.ts';
import { startParkKit } from '../../src/testing/world-kit.ts';
import { startTestHttp, TOKEN } from '../http/helpers.ts';
import { httpClient } from '../mcp/helpers.ts';
import { readWithResults, recordProgress } from '../mcp/wire.ts';

describeEachStore('world REST routes', (factory) => {
  test('components, uses, worlds, past turns, attempts and their links; POST runs a turn', async () => {
    await factory.withStore(async ({ store }) => {
      const kit = await startParkKit(store);
      const saved = { ...process.env };
      Object.assign(process.env, kit.env);
      const http = await startTestHttp(store);
      try {
        await kit.world('park');
        const wf = kit.doc('workflows/bob.json');
        assert.equal((await http.get('/cognition-workflows', { auth: false })).status, 401);
        const list = await http.get('/cognition-workflows?format=json');
        assert.equal(list.status, 200);
        assert.equal(list.body.items.length, 2);
        const detail = await http.get(`/cognition-workflows/hash/${wf}`);
        assert.equal(detail.body.content.apply.from, 'act.final');
        const uses = await http.get(`/cognition-workflows/hash/${wf}/uses`);
        const profiles = uses.body.uses.find((u: { kind: string }) => u.kind === 'cognition-profiles');
        assert.deepEqual(
          profiles.items.map((i: { hash: string }) => i.hash),
          [kit.doc('profiles/park-visitor.json')],
        );
        const weatherUses = await http.get(`/response-sources/hash/${kit.doc('sources/weather.json')}/uses`);
        const wfs = weatherUses.body.uses.find((u: { kind: string }) => u.kind === 'cognition-workflows');
        assert.deepEqual(
          wfs.items.map((i: { hash: string }) => i.hash),
          [wf],
        );
        const profile = await http.get(`/cognition-profiles/hash/${kit.doc('profiles/ant.json')}`);
        assert.equal(
          profile.body.links.workflow,
          `/cognition-workflows/hash/${kit.doc('workflows/ant.json')}`,
        );
        for (const kind of ['environments', 'entities', 'scenarios'])
          assert.equal((await http.get(`/${kind}`)).status, 200, kind);

        const post = await fetch(`${http.url}/worlds/park/turns`, {
          method: 'POST',
          headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
          body: '{}',
        });
        assert.equal(post.status, 201, await post.clone().text());
        const turn = (await post.json()) as { attempt_id: string; turn: number; status: string };
        assert.equal(turn.status, 'committed');

        const world = await http.get('/worlds/park');
        assert.equal(world.body.turn, 1);
        assert.equal(world.body.links.scenario, `/scenarios/hash/${kit.bundle.scenario_hash}`);
        assert.equal((await http.get('/worlds')).body.items[0].world_slug, 'park');
        const t0 = await http.get('/worlds/park/turns/0');
        assert.equal(t0.body.entities.crumb.state, 'a cookie crumb on the plate');
        // The turn's JSON is spliced from the snapshot's text: the same bytes as the object answer.
        // Sent twice: the pieces are views into cached text, which sending must leave intact.
        for (let i = 0; i < 2; i++) {
          const t1 = await http.get('/worlds/park/turns/1');
          assert.equal(t1.headers.get('x-request-id') !== null, true);
          assert.equal(
            t1.text,
            JSON.stringify({
              ...(await getWorld(store, { world_slug: 'park', turn: 1 })),
              links: { self: '/worlds/park/turns/1', world: '/worlds/park' },
            }),
          );
        }
        assert.equal((await http.get('/worlds/park/turns/9')).status, 404);
        assert.equal((await http.get('/worlds/nowhere')).status, 404);

        const attempt = await http.get(`/attempts/${turn.attempt_id}`);
        assert.equal(attempt.body.links.world, '/worlds/park');
        assert.equal(attempt.body.patches.length, 2);
        assert.equal(attempt.body.patches[0].links.workflow, `/cognition-workflows/hash/${wf}`);
        assert.equal(
          (await http.get(attempt.body.patches[0].links.source_invocation)).body.invocation_kind,
          'llm_generation',
        );
        const invs = await http.get(attempt.body.links.source_invocations);
        assert.ok(invs.body.items.length >= 6);
        const tool = invs.body.items.find(
          (i: { invocation_kind: string }) => i.invocation_kind === 'model_elected_tool',
        );
        const toolDetail = await http.get(`/source-invocations/${tool.source_invocation_id}`);
        assert.equal(toolDetail.body.links.workflow, `/cognition-workflows/hash/${wf}`);
        assert.match(toolDetail.body.links.parent, /^\/source-invocations\//);
        const parent = await http.get(toolDetail.body.links.parent);
        assert.match(parent.body.links.llm_call, /^\/llm-calls\//);
        assert.equal((await http.get(parent.body.links.llm_call)).status, 200);
        assert.equal((await http.get('/attempts?world_slug=park')).body.items.length, 1);
        assert.equal((await http.get('/attempts/not-an-attempt')).status, 404);
        for (const path of [
          '/worlds/park/turns/abc',
          '/worlds/park/turns/-1',
          '/worlds/%E2%80%AE',
          '/attempts?status=bogus',
          '/attempts?cursor=zzz',
          '/worlds?cursor=zzz',
          '/cognition-workflows?cursor=zzz',
          '/cognition-workflows?uses=%00',
          `/scenarios/hash/${'0'.repeat(64)}`,
          '/entities/hash/not-a-hash',
        ]) {
          const a = await http.get(path);
          assert.ok(a.status === 400 || a.status === 404, `${path}: ${a.status} ${a.text.slice(0, 200)}`);
        }
        // The removed cognition surfaces do not exist.
        for (const old of [
          '/perceive-systems',
          '/intend-systems',
          '/adjudicate-systems',
          '/adjudication-schemas',
        ])
          assert.equal((await http.get(old)).status, 404, old);
        // The world catalog over streamable HTTP.
        const mcp = await httpClient(http.url, TOKEN, '/mcp/world');
        try {
          const tools = (await mcp.client.listTools()).tools.map((t) => t.name);
          assert.equal(tools.length, 23);
          assert.ok(!tools.some((t) => /perceive|intend|adjudicat/.test(t)));
          const w = await mcp.ok<{ turn: number }>('get_world', { world_slug: 'park', turn: 1 });
          assert.equal(w.turn, 1);
        } finally {
          await mcp.close();
        }
        // run_turn with a progress token over streamable HTTP: the answer is an event stream, its
        // progress before its result (read from the wire: see ../mcp/wire.ts).
        const transport = new StreamableHTTPClientTransport(new URL(`${http.url}/mcp/world`), {
          requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } },
        });
        const client = new Client({ name: 'noema-world-http-test', version: '1.0.0' });
        await client.connect(transport);
        const progress = recordProgress(transport);
        readWithResults(transport);
        try {
          const r = await client.callTool(
            { name: 'run_turn', arguments: { world_slug: 'park' } },
            undefined,
            {
              onprogress: () => {},
            },
          );
          assert.equal((r.structuredContent as { status: string; turn: number }).status, 'committed');
          assert.equal((r.structuredContent as { turn: number }).turn, 2);
          const sent = progress.beforeResult;
          assert.ok(sent.includes('ambient park_weather: succeeded'), sent.join(' | '));
          assert.ok(sent.includes('subject bob: started'), sent.join(' | '));
          assert.ok(sent.includes('subject ant: started'), sent.join(' | '));
          assert.deepEqual(progress.afterResult, [], 'no progress after its call result');
        } finally {
          await client.close();
        }
        // Which answers are streams: a call with a progress token; a call without one gets one JSON
        // body (an MCP client accepts both).
        const call = (meta: Record<string, unknown> | undefined, accept: string) =>
          fetch(`${http.url}/mcp/world`, {
            method: 'POST',
            headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', accept },
            body: JSON.stringify({
              jsonrpc: '2.0',
              id: 7,
              method: 'tools/call',
              params: {
                name: 'get_world',
                arguments: { world_slug: 'park', turn: 1 },
                ...(meta ? { _meta: meta } : {}),
              },
            }),
          });
        const both = 'application/json, text/event-stream';
        const streamedAnswer = await call({ progressToken: 'p1' }, both);
        assert.match(streamedAnswer.headers.get('content-type') ?? '', /^text\/event-stream/);
        const events = await streamedAnswer.text();
        assert.match(events, /^event: message$/m);
        assert.match(events, /"id":7/);
        const plain = await call(undefined, both);
        assert.equal(plain.status, 200, await plain.clone().text());
        assert.match(plain.headers.get('content-type') ?? '', /^application\/json/);
        assert.equal(((await plain.json()) as { id: number }).id, 7);
        // A client that leaves in the middle of a streamed run_turn: the turn still commits (it is not
        // tied to the request), and the server goes on serving.
        const leaving = new AbortController();
        const left = await fetch(`${http.url}/mcp/world`, {
          method: 'POST',
          signal: leaving.signal,
          headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', accept: both },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 8,
            method: 'tools/call',
            params: { name: 'run_turn', arguments: { world_slug: 'park' }, _meta: { progressToken: 'p3' } },
          }),
        });
        const first = await left.body!.getReader().read();
        // Streamed as it happens, not buffered: the first read holds progress, not yet the result.
        assert.match(Buffer.from(first.value ?? []).toString(), /notifications\/progress/);
        assert.doesNotMatch(Buffer.from(first.value ?? []).toString(), /"result"/);
        leaving.abort();
        for (let i = 0; i < 200 && (await getWorld(store, { world_slug: 'park' })).turn < 3; i++)
          await new Promise((r) => setTimeout(r, 50));
        assert.equal((await getWorld(store, { world_slug: 'park' })).turn, 3, 'the abandoned turn committed');
        assert.equal((await call(undefined, both)).status, 200, 'still serving');
      } finally {
        await http.close();
        process.env = saved;
        await kit.close();
      }
    });
  });
});
