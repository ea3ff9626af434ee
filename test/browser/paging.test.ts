/**
 * The browser's pictures are paged, not capped, on both stores: a world with more turns than one
 * timeline page shows the latest turns with an "older turns" link whose page holds the rest; a
 * waterfall shows a page of calls with "older/newer calls" links that together reach every call;
 * cursors that are not this page's links are typed 400 answers.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { invocationPage } from '../../src/surfaces/http/pages/reads.ts';
import { pagedWaterfall } from '../../src/surfaces/http/pages/waterfall.ts';
import { TIMELINE_TURNS } from '../../src/surfaces/http/pages/world.ts';
import { startAgentKit } from '../../src/testing/agent-kit.ts';
import { describeEachStore } from '../../src/testing/each-store.ts';
import { startParkKit } from '../../src/testing/world-kit.ts';
import { startTestHttp, TOKEN } from '../http/helpers.ts';

const html = (url: string) =>
  fetch(url, { headers: { authorization: `Bearer ${TOKEN}`, accept: 'text/html' } }).then(async (r) => ({
    status: r.status,
    text: await r.text(),
  }));

/** The turns the page's timeline draws marks for, in order. */
const markedTurns = (page: string) => [
  ...new Set([...page.matchAll(/class="mark status-committed" data-turn="(\d+)"/g)].map((m) => Number(m[1]))),
];

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** Unescapes the `&amp;` of an href taken from the page. */
const hrefOf = (page: string, rel: 'prev' | 'next') => {
  const m = page.match(new RegExp(`<a rel="${rel}" href="([^"]+)"`));
  return m ? m[1]!.replaceAll('&amp;', '&') : null;
};

describeEachStore('paged pictures', (factory) => {
  test('a world with more than one page of turns shows the latest page, an older-turns link, and the rest on the older page', async () => {
    await factory.withStore(async ({ store }) => {
      const kit = await startParkKit(store);
      const http = await startTestHttp(store);
      try {
        await kit.world('park');
        const turns = TIMELINE_TURNS + 2;
        for (let i = 0; i < turns; i++)
          assert.equal((await kit.runtime.runTurn({ world_slug: 'park' })).status, 'committed');

        const latest = await html(`${http.url}/worlds/park`);
        assert.equal(latest.status, 200);
        assert.deepEqual(markedTurns(latest.text), range(3, turns), 'the latest page of turns');
        assert.equal(hrefOf(latest.text, 'prev'), '/worlds/park?before=3');
        assert.equal(hrefOf(latest.text, 'next'), null, 'nothing is newer than the latest page');
        assert.match(latest.text, new RegExp(`turns 3–${turns} of ${turns}`));

        const older = await html(`${http.url}${hrefOf(latest.text, 'prev')}`);
        assert.equal(older.status, 200);
        assert.deepEqual(markedTurns(older.text), [1, 2], 'the rest of the turns');
        assert.equal(hrefOf(older.text, 'prev'), null, 'turn 1 is the oldest');
        assert.equal(hrefOf(older.text, 'next'), '/worlds/park?after=2');
        const newer = await html(`${http.url}${hrefOf(older.text, 'next')}`);
        assert.deepEqual(markedTurns(newer.text), range(3, turns), 'newer leads back to the latest turns');

        // A past turn's page shows the window around that turn; its links open the world's pages.
        const turn1 = await html(`${http.url}/worlds/park/turns/1`);
        assert.deepEqual(markedTurns(turn1.text), range(1, TIMELINE_TURNS));
        assert.equal(hrefOf(turn1.text, 'next'), `/worlds/park?after=${TIMELINE_TURNS}`);

        for (const bad of ['?before=x', '?after=-1', '?before=3&after=2', '?before=<script>']) {
          const r = await html(`${http.url}/worlds/park${bad}`);
          assert.equal(r.status, 400, bad);
          assert.match(r.text, /INVALID_INPUT/, bad);
          assert.ok(!r.text.includes('=<script>'), `${bad} is escaped`);
        }
      } finally {
        await http.close();
        await kit.close();
      }
    });
  });

  test("a waterfall's pages reach every call of an attempt and of an agent run once, in order", async () => {
    await factory.withStore(async ({ store }) => {
      const park = await startParkKit(store);
      const agent = await startAgentKit(store);
      try {
        await park.world('park');
        const turn = await park.runtime.runTurn({ world_slug: 'park' });
        const { session_id } = await agent.runtime.createSession({
          agent_ref: { hash: agent.agent_hash },
          user_id: 'ada',
        });
        await agent.runtime.sendMessage(session_id, { content: 'add 2 and 3' });
        await agent.runtime.idle();
        const run = await store.get<{ run_id: string }>(
          'SELECT run_id FROM agent_session_messages WHERE session_id = ? AND run_id IS NOT NULL',
          [session_id],
        );
        for (const scope of [{ attempt_id: turn.attempt_id }, { run_id: run!.run_id }]) {
          const all = (await invocationPage(store, scope, {}, 1000)).items.map((r) => r.invocation_seq);
          assert.ok(all.length >= 3, `${JSON.stringify(scope)} has calls to page: ${all}`);
          const size = Math.ceil(all.length / 2) - (all.length % 2 === 0 ? 1 : 0);
          // Forward through the pages from the first, then back from the last.
          const forward: unknown[] = [];
          let page = await invocationPage(store, scope, {}, size);
          assert.equal(page.older, null);
          for (;;) {
            forward.push(...page.items.map((r) => r.invocation_seq));
            assert.ok(page.items.length <= size);
            if (page.newer === null) break;
            page = await invocationPage(store, scope, { after: page.newer }, size);
          }
          assert.deepEqual(forward, all, `forward pages of ${JSON.stringify(scope)}`);
          const backward: unknown[] = [];
          for (;;) {
            backward.unshift(...page.items.map((r) => r.invocation_seq));
            if (page.older === null) break;
            page = await invocationPage(store, scope, { before: page.older }, size);
          }
          assert.deepEqual(backward, all, `backward pages of ${JSON.stringify(scope)}`);
        }

        // The rendered pager: the first page links the next, whose page draws the rest.
        const first = await pagedWaterfall(
          store,
          { attempt_id: turn.attempt_id },
          new URL(`http://x/attempts/${turn.attempt_id}?format=html`),
          'calls',
          2,
        );
        const next = hrefOf(String(first), 'next');
        assert.equal(next, `/attempts/${turn.attempt_id}?format=html&after=2`);
        assert.equal(hrefOf(String(first), 'prev'), null);
        assert.equal((String(first).match(/<g class="bar /g) ?? []).length, 2);
        const second = await pagedWaterfall(
          store,
          { attempt_id: turn.attempt_id },
          new URL(`http://x${next}`),
          'calls',
          2,
        );
        assert.equal(hrefOf(String(second), 'prev'), `/attempts/${turn.attempt_id}?format=html&before=3`);
        assert.match(String(second), /calls #3–#4/);
      } finally {
        await agent.close();
        await park.close();
      }
    });
  });
});
