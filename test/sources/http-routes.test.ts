/** The trace read routes on a real `noema serve`, behind the token, on both stores. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startScriptedModel } from '../../src/dev/scripted-model/index.ts';
import { startToyServices, toySources } from '../../src/dev/toys/index.ts';
import { invokeSource, putResponseSource } from '../../src/sources/index.ts';
import { startCli } from '../../src/testing/cli.ts';
import { describeEachStore } from '../../src/testing/each-store.ts';
import { testTempDir } from '../../src/testing/temp-dir.ts';

const TOKEN = 'route-test-token-0123456789';

describeEachStore('source trace HTTP routes', (factory) => {
  test('list, filter, paginate and read invocations and LLM calls with the token; refuse without it', async () => {
    const { store, url, dispose } = await factory.open();
    const toys = await startToyServices();
    const model = await startScriptedModel({
      script: { rules: [{ reply: { json: { kind: 'final_patch' } } }] },
    });
    const server = startCli(['serve', '--port', '0'], {
      NOEMA_DB: url,
      NOEMA_TOKEN: TOKEN,
      NOEMA_DATA_DIR: testTempDir('noema-routes-'),
    });
    try {
      const weather = await putResponseSource(store, toySources.weather);
      for (const turn of [1, 2, 3]) {
        await invokeSource(store, {
          source: weather,
          request: { turn },
          kind: 'ambient_context',
          env: toys.env,
          links: {
            attempt_id: 'att-1',
            attempted_turn: turn,
            world_slug: 'park',
            ambient_source_id: 'park_weather',
          },
        });
      }
      const llm = await putResponseSource(store, {
        version: 1,
        interface: { name: 'llm_chat_completions', model: 'scripted', schema_delivery: 'response_format' },
      });
      const gen = await invokeSource(store, {
        source: llm,
        request: { messages: [{ role: 'user', content: 'go' }] },
        kind: 'llm_generation',
        env: { NOEMA_LLM_BASE_URL: model.url },
        links: { attempt_id: 'att-1' },
      });
      assert.equal(gen.ok, true, gen.error?.message);

      const [, base] = await server.waitFor(/serving on (http:\/\/127\.0\.0\.1:\d+)/);
      const get = async (path: string, auth = true) => {
        const res = await fetch(
          `${base}${path}`,
          auth ? { headers: { authorization: `Bearer ${TOKEN}` } } : {},
        );
        return { status: res.status, body: (await res.json()) as Record<string, unknown> };
      };
      assert.equal((await get('/source-invocations', false)).status, 401);
      assert.equal((await get(`/llm-calls/${gen.llm_call_id}`, false)).status, 401);

      const all = await get('/source-invocations?format=json');
      assert.equal(all.status, 200);
      assert.equal((all.body.items as unknown[]).length, 4);

      const ambient = await get('/source-invocations?attempt=att-1&kind=ambient_context&status=succeeded');
      const seqs = (ambient.body.items as Array<{ invocation_seq: number }>).map((i) => i.invocation_seq);
      assert.deepEqual(seqs, [3, 2, 1], 'newest first');

      const page1 = await get('/source-invocations?limit=3');
      // `has_more` = more pages; `truncated` = cut to the character budget (issue 9).
      assert.equal(page1.body.has_more, true);
      assert.equal(page1.body.truncated, false);
      const page2 = await get(`/source-invocations?limit=3&cursor=${page1.body.next_cursor}`);
      assert.equal((page2.body.items as unknown[]).length, 1);
      assert.equal(page2.body.next_cursor, null);

      const byAttempt = await get('/attempts/att-1/source-invocations?kind=llm_generation');
      const [genRow] = byAttempt.body.items as Array<{
        source_invocation_id: string;
        links: Record<string, string>;
      }>;
      assert.equal(genRow!.source_invocation_id, gen.source_invocation_id);
      assert.equal(genRow!.links.llm_call, `/llm-calls/${gen.llm_call_id}`);

      const detail = await get(`/source-invocations/${gen.source_invocation_id}`);
      assert.equal(detail.body.status, 'succeeded');
      assert.deepEqual(detail.body.response_json, { kind: 'final_patch' });

      const links = detail.body.links as Record<string, string>;
      const sourceDoc = await get(links.response_source!);
      assert.equal(sourceDoc.status, 200);
      assert.equal(
        (sourceDoc.body.content as { interface: { name: string } }).interface.name,
        'llm_chat_completions',
      );
      assert.equal((await get(`/json-schemas/hash/${'0'.repeat(64)}`)).body.code, 'UNKNOWN_JSON_SCHEMA');

      const call = await get(`/llm-calls/${gen.llm_call_id}`);
      assert.equal(call.status, 200);
      assert.ok((call.body.chunks as unknown[]).length > 0);
      assert.deepEqual(
        (call.body.artifacts as Array<{ kind: string }>).map((a) => a.kind),
        ['parsed_output'],
      );

      assert.equal((await get('/source-invocations/nope')).status, 404);
      assert.equal((await get('/llm-calls/nope')).body.code, 'UNKNOWN_LLM_CALL');
      assert.equal((await get('/source-invocations?status=bogus')).status, 400);
      assert.equal((await get('/source-invocations?limit=100000')).status, 400);
    } finally {
      server.child.kill('SIGKILL');
      await toys.close();
      await model.close();
      await dispose();
    }
  });
});

test('the route module is registered in the route table', async () => {
  const { allRoutes } = await import('../../src/surfaces/http/routes/index.ts');
  const paths = allRoutes({ store: null as never }).map((r) => r.path);
  assert.ok(paths.includes('/source-invocations/:source_invocation_id'));
  assert.ok(paths.includes('/llm-calls/:llm_call_id'));
});
