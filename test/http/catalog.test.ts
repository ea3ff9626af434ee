/**
 * The resource catalog on a real server, on both stores: every registered kind's list, detail,
 * links, uses, pagination and budgets, in JSON and HTML; and a kind registered from outside.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { NoemaError } from '../../src/core/errors.ts';
import { startToyServices, toySources } from '../../src/dev/toys/index.ts';
import { createEngine } from '../../src/engine/index.ts';
import { invokeSource, putResponseSource } from '../../src/sources/index.ts';
import { loadSessionKey, SessionKeeper } from '../../src/surfaces/http/auth/sessions.ts';
import { Catalog, catalogRoutes } from '../../src/surfaces/http/catalog/index.ts';
import { startHttpServer } from '../../src/surfaces/http/server.ts';
import { describeEachStore } from '../../src/testing/each-store.ts';
import { registerKit } from '../../src/testing/engine-kit.ts';
import { testTempDir } from '../../src/testing/temp-dir.ts';
import { type Loose, startTestHttp, TOKEN } from './helpers.ts';

describeEachStore('resource catalog over HTTP', (factory) => {
  test('lists, details, links, uses, pagination and budgets for the registered kinds, JSON and HTML', async () => {
    const { store, dispose } = await factory.open();
    const toys = await startToyServices();
    const http = await startTestHttp(store);
    const engine = createEngine(store, { fanOut: false });
    try {
      registerKit(engine);
      const weather = await putResponseSource(store, toySources.weather);
      for (const turn of [1, 2, 3]) {
        const out = await invokeSource(store, {
          source: weather,
          request: { turn },
          kind: 'ambient_context',
          env: toys.env,
          links: { attempt_id: 'att-<1>', attempted_turn: turn, world_slug: 'park' },
        });
        assert.equal(out.ok, true);
      }
      const big = 'x'.repeat(300_000);
      const run = await engine.start({
        entry: 'a',
        channels: { messages: { reducer: 'append' } },
        nodes: [
          { id: 'a', type: 'append', config: { text: big } },
          { id: 'end', type: 'terminal' },
        ],
        connectors: [{ from: 'a', to: 'end' }],
      });
      assert.equal(run.status, 'completed');

      // Lists: pagination with next_cursor/has_more, filters by alias, scopes.
      const p1 = await http.get('/source-invocations?limit=2');
      assert.equal(p1.status, 200);
      assert.equal(p1.body.items.length, 2);
      assert.equal(p1.body.has_more, true);
      assert.equal(p1.body.truncated, false);
      const p2 = await http.get(
        `/source-invocations?limit=2&cursor=${encodeURIComponent(p1.body.next_cursor)}`,
      );
      assert.equal(p2.body.items.length, 1);
      assert.equal(p2.body.has_more, false);
      assert.equal(p2.body.next_cursor, null);
      const scoped = await http.get(
        `/attempts/${encodeURIComponent('att-<1>')}/source-invocations?status=succeeded`,
      );
      assert.equal(scoped.body.items.length, 3);
      const [first] = scoped.body.items;
      assert.equal(first.links.self, `/source-invocations/${first.source_invocation_id}`);
      assert.equal(first.links.response_source, `/response-sources/hash/${weather.hash}`);
      assert.equal(first.links.workflow, undefined, 'no link to a kind nobody registered');

      // A budget cuts the page (truncated) but has_more/next_cursor still lead on.
      const cut = await http.get(
        `/source-invocations?max_chars=${JSON.stringify(p1.body.items[0]).length + 200}`,
      );
      assert.equal(cut.body.truncated, true);
      assert.equal(cut.body.items.length, 1);
      assert.equal(cut.body.has_more, true);
      assert.equal(cut.body.next_cursor, cut.body.items[0].source_invocation_id);

      // Content-addressed kinds list too (by hash), with their filters.
      const sources = await http.get('/response-sources?interface=http_json');
      assert.deepEqual(
        sources.body.items.map((d: { hash: string }) => d.hash),
        [weather.hash],
      );
      assert.equal(sources.body.items[0].links.self, `/response-sources/hash/${weather.hash}`);
      assert.equal((await http.get('/response-sources?interface=llm_chat_completions')).body.items.length, 0);
      assert.equal((await http.get('/json-schemas')).status, 200);

      // uses of a content-addressed document.
      const uses = await http.get(`/response-sources/hash/${weather.hash}/uses`);
      assert.equal(uses.status, 200);
      const byInvocations = uses.body.uses.find((u: { kind: string }) => u.kind === 'source-invocations');
      assert.equal(byInvocations.items.length, 3);

      // Runs: list, detail with a field over the default budget cut and fetchable whole.
      const runs = await http.get('/runs?status=completed');
      assert.deepEqual(
        runs.body.items.map((r: { run_id: string }) => r.run_id),
        [run.run_id],
      );
      const detail = await http.get(`/runs/${run.run_id}`);
      assert.equal(detail.status, 200);
      assert.equal(detail.body.truncated, true);
      assert.ok(detail.body.truncated_fields.includes('state'));
      assert.ok(detail.text.length < 210_000);
      assert.equal(detail.body.links.full, `/runs/${run.run_id}?full=true`);
      assert.equal(detail.body.links.graph, `/graphs/hash/${runs.body.items[0].graph_hash}`);
      const whole = await http.get(detail.body.links.full);
      assert.deepEqual(whole.body.state.messages, [big]);
      assert.equal((await http.get('/graphs')).body.items[0].links.self, detail.body.links.graph);
      const graphUses = await http.get(`${detail.body.links.graph}/uses`);
      assert.equal(graphUses.body.uses[0].items[0].run_id, run.run_id);

      // HTML for browsers, escaped.
      const page = await http.get('/source-invocations', {
        headers: { accept: 'text/html,application/xhtml+xml' },
      });
      assert.match(page.headers.get('content-type') ?? '', /text\/html/);
      assert.match(page.text, /<table>/);
      assert.match(page.text, /href="\/runs"/, 'navigation over all kinds');
      const paged = await http.get('/source-invocations?format=html&limit=2');
      const next = /<a href="([^"]+)" rel="next">/.exec(paged.text);
      assert.ok(next, 'a list page links to the next page');
      const second = await http.get(next[1]!.replaceAll('&amp;', '&'));
      assert.match(second.text, /end of list/);
      const one = await http.get(`/source-invocations/${first.source_invocation_id}?format=html`);
      assert.match(one.text, /att-&lt;1&gt;/, 'record values are escaped');
      assert.doesNotMatch(one.text, /att-<1>/);
      assert.match(one.text, new RegExp(`<a href="/response-sources/hash/${weather.hash}">`));

      // A source invocation with an 8 MiB-class body: cut by default, whole on request.
      const bigServer = createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ temperature_f: 70, condition: 'sunny', message: 'y'.repeat(1_000_000) }));
      });
      await new Promise<void>((resolve) => bigServer.listen(0, '127.0.0.1', resolve));
      try {
        const huge = await invokeSource(store, {
          source: weather,
          request: { turn: 9 },
          kind: 'ambient_context',
          env: { NOEMA_TOY_WEATHER_URL: `http://127.0.0.1:${(bigServer.address() as AddressInfo).port}` },
          links: { attempt_id: 'att-big' },
        });
        assert.equal(huge.ok, true, huge.error?.message);
        const bounded = await http.get(`/source-invocations/${huge.source_invocation_id}`);
        assert.equal(bounded.status, 200);
        assert.ok(bounded.text.length <= 200_000, `default budget: ${bounded.text.length} chars`);
        assert.equal(bounded.body.truncated, true);
        assert.ok(bounded.body.truncated_fields.length > 0);
        const complete = await http.get(`/source-invocations/${huge.source_invocation_id}?full=true`);
        assert.equal(complete.body.response_json.message.length, 1_000_000);
        assert.equal(complete.body.truncated, undefined);
      } finally {
        bigServer.close();
      }

      // Correlation ids are echoed; every JSON route of GET / is in the generated OpenAPI document.
      const correlated = await http.get('/runs/nope', { headers: { 'x-correlation-id': 'corr-42' } });
      assert.equal(correlated.headers.get('x-correlation-id'), 'corr-42');
      assert.equal(correlated.body.correlation_id, 'corr-42');
      assert.equal((await http.get('/runs', { headers: { 'x-correlation-id': 'bad id' } })).status, 400);
      const openapi = (await http.get('/openapi.json')).body;
      for (const route of (await http.get('/')).body.routes as string[]) {
        const [method, path] = route.split(' ') as [string, string];
        if (method === 'ANY' || ['/login', '/logout'].includes(path)) continue;
        const key = path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
        assert.ok(openapi.paths[key]?.[method.toLowerCase()], `${route} is in /openapi.json`);
      }

      // Bad input: typed 4xx, never 500.
      assert.equal((await http.get('/source-invocations?status=bogus')).status, 400);
      assert.equal((await http.get('/source-invocations?nope=1')).status, 400);
      assert.equal((await http.get('/runs?cursor=abc')).status, 400);
      assert.equal((await http.get('/source-invocations?format=xml')).status, 400);
      assert.equal((await http.get('/runs/00000000-0000-0000-0000-000000000000')).body.code, 'UNKNOWN_RUN');
      assert.equal((await http.get('/source-invocations/%00')).status, 404);
      assert.equal((await http.get(`/runs/${run.run_id}?max_chars=10`)).body.code, 'BUDGET_TOO_SMALL');
    } finally {
      await engine.close();
      await http.close();
      await toys.close();
      await dispose();
    }
  });
});

test('a kind registered from outside gets routes, validated filters, links, uses and OpenAPI entries; an action route gets a validated body', async () => {
  type Note = { note_id: string; tag_hash: string; priority: number; color: string };
  const notes: Note[] = Array.from({ length: 5 }, (_, i) => ({
    note_id: `n${i}`,
    tag_hash: i % 2 ? 'aa' : 'bb',
    priority: i,
    color: i % 2 ? 'red' : 'blue',
  }));
  const catalog = new Catalog();
  catalog.register<Note>({
    kind: 'notes',
    title: 'Notes',
    key: { by: 'id', param: 'note_id' },
    filters: {
      color: { type: 'enum', values: ['red', 'blue'] },
      priority: { type: 'integer', minimum: 0, maximum: 9 },
      tag_hash: { type: 'string' },
    },
    async list(_ctx, q) {
      const start = q.cursor ? notes.findIndex((n) => n.note_id === q.cursor) + 1 : 0;
      const hits = notes
        .slice(start)
        .filter((n) => Object.entries(q.filters).every(([k, v]) => n[k as keyof Note] === v));
      const items = hits.slice(0, q.limit);
      return { items, next_cursor: hits.length > q.limit ? items.at(-1)!.note_id : null };
    },
    cursorOf: (n) => n.note_id,
    async get(_ctx, id) {
      const n = notes.find((x) => x.note_id === id);
      if (!n) throw new NoemaError('UNKNOWN_NOTE', `no note ${id}`);
      return n;
    },
    links: [{ field: 'tag_hash', kind: 'tags', rel: 'tag' }],
  });
  catalog.register({
    kind: 'tags',
    title: 'Tags',
    key: { by: 'hash', field: 'hash' },
    get: async (_ctx, hash) => ({ hash, label: `tag ${hash}` }),
  });
  assert.throws(() =>
    catalog.register({
      kind: 'tags',
      title: 'again',
      key: { by: 'hash', field: 'h' },
      get: async () => ({}),
    }),
  );

  const server = await startHttpServer({
    host: '127.0.0.1',
    port: 0,
    token: TOKEN,
    sessions: new SessionKeeper(loadSessionKey(testTempDir('noema-kind-'))),
    routes: [
      ...catalogRoutes(catalog, { store: null as never }),
      {
        method: 'POST',
        path: '/notes/:note_id/pins',
        summary: 'Pin a note',
        body: {
          type: 'object',
          required: ['until'],
          properties: { until: { type: 'integer', minimum: 0 } },
          additionalProperties: false,
        },
        async handle(ctx) {
          const body = (await ctx.readJson()) as { until: number };
          return {
            status: 201,
            json: {
              note_id: ctx.params.note_id,
              until: body.until,
              correlation_id: ctx.correlationId ?? null,
            },
          };
        },
      },
    ],
  });
  const get = async (path: string) => {
    const res = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${TOKEN}` } });
    return { status: res.status, body: (await res.json()) as Record<string, Loose> };
  };
  try {
    const red = await get('/notes?color=red&limit=1');
    assert.deepEqual(
      red.body.items.map((n: Note) => n.note_id),
      ['n1'],
    );
    assert.equal(red.body.has_more, true);
    assert.equal(red.body.items[0].links.tag, '/tags/hash/aa');
    assert.equal((await get('/notes?priority=3')).body.items[0].note_id, 'n3');
    assert.equal((await get('/notes?priority=12')).status, 400);
    assert.equal((await get('/notes?color=green')).status, 400);
    assert.equal((await get('/notes/n9')).status, 404);
    const uses = await get('/tags/hash/aa/uses');
    assert.deepEqual(
      uses.body.uses[0].items.map((n: Note) => n.note_id),
      ['n1', 'n3'],
    );
    const post = (body: string, headers: Record<string, string> = {}) =>
      fetch(`${server.url}/notes/n1/pins`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', ...headers },
        body,
      });
    const pinned = await post('{"until": 5}', { 'x-correlation-id': 'c-1' });
    assert.equal(pinned.status, 201);
    assert.deepEqual(await pinned.json(), { note_id: 'n1', until: 5, correlation_id: 'c-1' });
    assert.equal((await post('{"until": -1}')).status, 400, 'the body schema is enforced');
    assert.equal((await post('{"until":')).status, 400, 'malformed JSON');
    assert.equal((await get('/notes/n1/pins')).status, 405);
    const openapi = await get('/openapi.json');
    assert.deepEqual(
      openapi.body.paths['/notes/{note_id}/pins'].post.requestBody.content['application/json'].schema
        .required,
      ['until'],
    );
    const params = openapi.body.paths['/notes'].get.parameters.map((p: { name: string }) => p.name);
    assert.ok(params.includes('color') && params.includes('cursor') && params.includes('max_chars'));
    assert.ok(openapi.body.paths['/tags/hash/{hash}/uses']);
  } finally {
    await server.close();
  }
});
