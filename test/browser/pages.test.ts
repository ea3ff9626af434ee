/**
 * The browser's pages over HTTP on both stores (no Chromium needed): each page of a park world answers
 * HTML with its picture and forensics links, its JSON twin is the catalog record, bad ids are 404
 * pages, and stored text is escaped.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadScript } from '../../src/dev/scripted-model/index.ts';
import { branchCreate, init, notesCommit } from '../../src/memory/index.ts';
import { describeEachStore } from '../../src/testing/each-store.ts';
import { PARK_SCRIPT, startParkKit } from '../../src/testing/world-kit.ts';
import { startTestHttp, TOKEN } from '../http/helpers.ts';

const html = (url: string) =>
  fetch(url, { headers: { authorization: `Bearer ${TOKEN}`, accept: 'text/html' } }).then(async (r) => ({
    status: r.status,
    type: r.headers.get('content-type') ?? '',
    text: await r.text(),
  }));

describeEachStore('browser pages', (factory) => {
  test('world, turn, attempt, generation, LLM call, run and workflow pages draw their pictures and link the chain', async () => {
    await factory.withStore(async ({ store }) => {
      const script = loadScript(PARK_SCRIPT);
      script.rules.unshift({
        match: { turn: 2, subject: 'ant' },
        reply: {
          json: {
            kind: 'final_patch',
            tool_call: null,
            patch: {
              narration: 'The ant writes <b>bold</b>.',
              effects: [{ op: 'set_entity_state', entity_id: 'ant', state: '<img src=x onerror=alert(1)>' }],
            },
          },
        },
      });
      // Turn 3 fails: the model answers 400 for Bob, so the attempt fails and nothing is committed.
      script.rules.unshift({ match: { turn: 3, subject: 'bob' }, reply: { error: { status: 400 } } });
      const kit = await startParkKit(store, { script });
      const saved = { ...process.env };
      Object.assign(process.env, kit.env);
      const http = await startTestHttp(store);
      try {
        await kit.world('park');
        const first = await kit.runtime.runTurn({ world_slug: 'park' });
        await kit.runtime.runTurn({ world_slug: 'park' });
        const failed = await kit.runtime.runTurn({ world_slug: 'park' });
        assert.equal(failed.status, 'failed');

        const home = await html(`${http.url}/`);
        assert.match(home.type, /text\/html/);
        assert.match(home.text, /<div class="n">1<\/div><div class="l">worlds<\/div>/);
        const homeJson = (await http.get('/home?format=json')).body;
        assert.equal(homeJson.counts.worlds, '1', 'the home page has its JSON twin');
        assert.equal(homeJson.worlds[0].world_slug, 'park');

        const world = await html(`${http.url}/worlds/park`);
        assert.equal(world.status, 200);
        assert.equal((world.text.match(/class="mark status-committed"/g) ?? []).length, 4);
        assert.equal(
          (world.text.match(/class="mark status-failed"/g) ?? []).length,
          1,
          'the failed turn is red',
        );
        assert.match(
          home.text,
          new RegExp(`href="/attempts/${failed.attempt_id}"`),
          'home lists the failure',
        );
        assert.ok(world.text.includes('&lt;img src=x onerror=alert(1)&gt;'));
        assert.ok(!world.text.includes('<img src=x'));

        const turn1 = await html(`${http.url}/worlds/park/turns/1`);
        const why = [...turn1.text.matchAll(/class="why" href="(\/llm-calls\/[^"]+)"/g)].map((m) => m[1]!);
        assert.equal(why.length, 5, 'bob: 3 transitions, the ant: 2 — each with its LLM call');
        const json = (await http.get('/worlds/park/turns/1')).body;
        assert.equal(json.turn, 1, 'the JSON twin is unchanged');

        const call = await html(`${http.url}${why[0]}`);
        assert.equal(call.status, 200);
        assert.match(call.text, /<h2>Prompt messages<\/h2>/);
        assert.match(call.text, /class="msg role-system"/);
        assert.match(call.text, /tool buy_candy/);
        assert.match(call.text, /href="\/cognition-workflows\/hash\/[0-9a-f]{64}"/);
        assert.match(call.text, /<dt>tokens<\/dt><dd>\d+ in · \d+ out<\/dd>/, 'the tokens it reported');

        const attempt = await html(`${http.url}/attempts/${first.attempt_id}`);
        const bars = (attempt.text.match(/<g class="bar /g) ?? []).length;
        assert.equal(bars, (await http.get(`/attempts/${first.attempt_id}`)).body.source_invocation_count);
        assert.match(attempt.text, /class="bar kind-model_elected_tool/);

        const runId = (await http.get(`/attempts/${first.attempt_id}`)).body.run_id;
        const run = await html(`${http.url}/runs/${runId}`);
        assert.match(run.text, /<svg[^>]*class="picture graph"/);
        assert.match(run.text, /data-node-id="s0.n.act"/);
        assert.ok(!run.text.includes('data-live-src="'), 'a finished run is not live');
        assert.match(run.text, /<dt>duration<\/dt><dd>[\d.]+ m?s<\/dd>/, 'how long it took');
        assert.match(run.text, /<dt>LLM calls<\/dt><dd>\d+<\/dd><dt>tokens<\/dt><dd>\d+ in · \d+ out<\/dd>/);
        assert.match(run.text, /class="legend"/, 'the graph has its legend');
        assert.equal(
          (run.text.match(/<g class="bar /g) ?? []).length,
          bars,
          "the run's waterfall is its attempt's",
        );

        const wf = await html(`${http.url}/cognition-workflows/hash/${kit.doc('workflows/bob.json')}`);
        assert.match(wf.text, /class="edge edge-dashed"/);
        assert.match(wf.text, /class="edge edge-dotted"/);

        const missing = await html(`${http.url}/worlds/park/turns/99`);
        assert.equal(missing.status, 404);
        assert.match(missing.text, /UNKNOWN_TURN|404/);
      } finally {
        await http.close();
        await kit.close();
        process.env = saved;
      }
    });
  });

  test('a reasoning-memory workspace draws its branch tree from base cutoffs to heads', async () => {
    await factory.withStore(async ({ store }) => {
      const http = await startTestHttp(store);
      try {
        await init(store, { workspace: 'ws' });
        await notesCommit(store, { workspace: 'ws', doc: 'notes', content: 'first note' });
        await branchCreate(store, { workspace: 'ws', name: 'idea', from: 'main' });
        await notesCommit(store, {
          workspace: 'ws',
          branch: 'idea',
          doc: 'notes',
          content: 'on the idea branch',
        });
        await notesCommit(store, { workspace: 'ws', branch: 'idea', doc: 'notes', content: 'and another' });
        const json = (await http.get('/memory-workspaces/ws')).body;
        const idea = json.branches.find((b: { name: string }) => b.name === 'idea');
        assert.equal(idea.base_branch, 'main');
        assert.equal(idea.entry_count, 2);
        assert.ok(idea.head_seq > idea.base_seq);
        const page = await html(`${http.url}/memory-workspaces/ws`);
        assert.match(page.text, /<svg[^>]*class="picture branches"/);
        assert.equal((await http.get('/memory-workspaces')).body.items[0].branch_count, 2);
        assert.equal((await http.get('/memory-workspaces/nowhere')).status, 404);
      } finally {
        await http.close();
      }
    });
  });
});
