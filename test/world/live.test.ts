/**
 * The world page follows turns by engine events (issue 13): `noema serve` runs world turns on the
 * server's own engine, so the event stream a world page subscribes to while a turn runs
 * (`/runs/:run_id/events` of the running attempt) carries that turn's events on both stores — on
 * SQLite there is no LISTEN/NOTIFY, so a runtime with an engine of its own would leave the stream
 * silent and the page on its 3-second re-read. The turn commits inside the run, so by the time a
 * client sees the run complete, the committed turn is readable.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadScript } from '../../src/dev/scripted-model/index.ts';
import { describeEachStore } from '../../src/testing/each-store.ts';
import { connectSse, type SseMessage } from '../../src/testing/sse-client.ts';
import { PARK_SCRIPT, startParkKit } from '../../src/testing/world-kit.ts';
import { startTestHttp, TOKEN } from '../http/helpers.ts';

const AUTH = { authorization: `Bearer ${TOKEN}` };

describeEachStore('world pages follow turns by events', (factory) => {
  test("a turn run through POST /worlds/:slug/turns reaches the world page's event stream, committed when the run completes", async () => {
    await factory.withStore(async ({ store }) => {
      // Slow replies keep the turn running long enough to open the page and its stream.
      const script = loadScript(PARK_SCRIPT);
      script.rules = script.rules.map((r) => ({ ...r, reply: { ...r.reply, delay_ms: 400 } }));
      const kit = await startParkKit(store, { script });
      const saved = { ...process.env };
      Object.assign(process.env, kit.env);
      const http = await startTestHttp(store);
      try {
        await kit.world('park');
        let postDone = 0;
        const post = fetch(`${http.url}/worlds/park/turns`, {
          method: 'POST',
          headers: { ...AUTH, 'content-type': 'application/json' },
          body: '{}',
        }).then(async (r) => {
          postDone = Date.now();
          return { status: r.status, body: (await r.json()) as { status: string; turn: number } };
        });
        // The world page while the turn runs: live, on the running attempt's run stream.
        let src: string | undefined;
        for (let i = 0; i < 200 && !src; i++) {
          const page = await http.get('/worlds/park', { headers: { accept: 'text/html' } });
          src = /data-live-src="([^"]+)"/.exec(page.text)?.[1];
          if (!src) await new Promise((r) => setTimeout(r, 25));
        }
        assert.ok(src, 'the world page is live while its turn runs');
        assert.match(src, /^\/runs\/[^/]+\/events$/);
        const sse = await connectSse(`${http.url}${src}`, AUTH);
        assert.equal(sse.status, 200);
        const seen: SseMessage[] = [];
        let completedAt = 0;
        let headAtCompletion: number | undefined;
        for (;;) {
          // Far below the page's 3 s re-read: each event follows the last within a model reply or two.
          const m = await sse.next(2_500);
          assert.ok(m, `the stream ended after ${JSON.stringify(seen.map((x) => x.event))}`);
          seen.push(m);
          if (m.event === 'run.updated' && JSON.parse(m.data).status === 'completed') {
            completedAt = Date.now();
            headAtCompletion = (await http.get('/worlds/park?format=json')).body.head_turn;
            break;
          }
        }
        sse.close();
        const patches = seen.filter(
          (m) => m.event === 'node.updated' && JSON.parse(m.data).data?.kind === 'patch',
        );
        assert.ok(
          patches.length >= 1,
          `the turn's patches were streamed: ${seen.map((m) => m.event).join(',')}`,
        );
        assert.equal(headAtCompletion, 1, 'the turn is committed when the run completes');
        const answer = await post;
        assert.equal(answer.status, 201);
        assert.equal(answer.body.status, 'committed');
        assert.ok(
          completedAt <= postDone + 1_000,
          'the stream told of the commit no later than the POST answered',
        );
        const after = await http.get('/worlds/park', { headers: { accept: 'text/html' } });
        assert.doesNotMatch(
          after.text,
          /data-live-src=/,
          'the page is no longer live once the turn committed',
        );
      } finally {
        await http.close();
        process.env = saved;
        await kit.close();
      }
    });
  });
});
