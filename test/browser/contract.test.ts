/**
 * A contract's page draws the ExecutionContract state machine (every status, every legal move) with
 * the moves this contract took emphasized and its status highlighted, named and described for
 * assistive technology, and links back to its run — on every selected store (STORES).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startAgentKit } from '../../src/testing/agent-kit.ts';
import { openTestStore, selectedStores, type TestStore } from '../../src/testing/stores.ts';
import { type Served, serveStore, TOKEN } from './fixture.ts';

const get = (url: string) =>
  fetch(url, { headers: { authorization: `Bearer ${TOKEN}`, accept: 'text/html' } }).then(async (r) => ({
    status: r.status,
    text: await r.text(),
  }));

for (const kind of selectedStores())
  describe(`contract page [${kind}]`, () => {
    let ts: TestStore;
    let served: Served;
    let close: () => Promise<void>;
    let ecs: { contract_id: string; run_id: string };
    before(async () => {
      ts = await openTestStore(kind);
      const agents = await startAgentKit(ts.store);
      close = agents.close;
      const { session_id } = await agents.runtime.createSession({
        agent_label: 'calculator',
        user_id: 'ada',
      });
      const waiting = await agents.runtime.sendMessage(session_id, { content: 'book a slot' });
      const contract_id = waiting.outcome.waiting[0]!.contract_id;
      await agents.runtime.respondEcs({ session_id, contract_id, response: { day: 'monday' } });
      await agents.runtime.continueEcs({ session_id });
      const row = await ts.store.get<{ run_id: string }>(
        'SELECT r.run_id FROM engine_contracts c JOIN engine_runs r ON r.run_pk = c.run_pk WHERE c.contract_id = ?',
        [contract_id],
      );
      ecs = { contract_id, run_id: row!.run_id };
      served = await serveStore(ts.store, agents.runtime.engine);
    });
    after(async () => {
      await served?.close();
      await close?.();
      await ts?.dispose();
    });

    test('the state machine is drawn with the transitions the contract took emphasized', async () => {
      const page = await get(`${served.url}/contracts/${ecs.contract_id}`);
      assert.equal(page.status, 200, page.text);
      const svg = page.text.match(/<svg[\s\S]*?<\/svg>/)?.[0] ?? '';
      for (const s of ['PENDING', 'RUNNING', 'WAITING', 'COMPLETED', 'FAILED', 'CANCELLED'])
        assert.match(svg, new RegExp(`data-node-id="${s}"`), `state ${s} is drawn`);
      // Every legal move (1 creation + 9 between statuses) is an edge; the ones taken are emphasized.
      const edges = [...svg.matchAll(/<g class="edge [^"]*" data-from="([^"]+)" data-to="([^"]+)"/g)];
      assert.equal(edges.length, 10);
      const taken = [
        ...svg.matchAll(/<g class="edge [^"]*taken" data-from="([^"]+)" data-to="([^"]+)"/g),
      ].map((m) => `${m[1]}>${m[2]}`);
      const record = (await (
        await fetch(`${served.url}/contracts/${ecs.contract_id}?format=json`, {
          headers: { authorization: `Bearer ${TOKEN}` },
        })
      ).json()) as { status: string; transitions: Array<{ from: string | null; to: string }> };
      const expected = [...new Set(record.transitions.map((t) => `${t.from ?? 'created'}>${t.to}`))];
      assert.ok(expected.includes('WAITING>RUNNING'), 'an ECS form waits, then resumes');
      assert.deepEqual(taken.sort(), expected.sort());
      assert.match(svg, new RegExp(`class="node [^"]*current" data-node-id="${record.status}"`));
      assert.match(
        svg,
        /<title>Contract [^<]+: state machine<\/title><desc>The ExecutionContract state machine: /,
      );
      assert.match(page.text, new RegExp(`href="/runs/${ecs.run_id}"`), 'links back to its run');
    });

    test('an unknown contract is a 404 page', async () => {
      const page = await get(`${served.url}/contracts/${encodeURIComponent('<nope>')}`);
      assert.equal(page.status, 404);
      assert.doesNotMatch(page.text, /<nope>/);
    });
  });
