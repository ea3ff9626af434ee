/**
 * Figures on the browser's pages, on both stores: an LLM call page shows its time to first token
 * (first streamed chunk − start, as stored), and every waterfall carries a legend of its bar colours.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachStore } from '../../src/testing/each-store.ts';
import { startParkKit } from '../../src/testing/world-kit.ts';
import { startTestHttp, TOKEN } from '../http/helpers.ts';

const html = (url: string) =>
  fetch(url, { headers: { authorization: `Bearer ${TOKEN}`, accept: 'text/html' } }).then((r) => r.text());

describeEachStore('browser figures', (factory) => {
  test('an LLM call shows its time to first token; a waterfall shows its legend', async () => {
    await factory.withStore(async ({ store }) => {
      const kit = await startParkKit(store);
      const saved = { ...process.env };
      Object.assign(process.env, kit.env);
      const http = await startTestHttp(store);
      try {
        await kit.world('park');
        const turn = await kit.runtime.runTurn({ world_slug: 'park' });
        const calls = (
          (await http.get(`/attempts/${turn.attempt_id}/source-invocations`)).body.items as Array<{
            llm_call_id: string | null;
          }>
        ).filter((i) => i.llm_call_id);
        assert.ok(calls.length > 0);
        const call = (await http.get(`/llm-calls/${calls[0]!.llm_call_id}`)).body;
        const ttft = Date.parse(call.first_chunk_at) - Date.parse(call.started_at);
        assert.ok(ttft >= 0, 'the scripted model streams');
        const page = await html(`${http.url}/llm-calls/${calls[0]!.llm_call_id}`);
        assert.match(page, new RegExp(`<dt>time to first token</dt><dd>${ttft} ms</dd>`));

        const attempt = await html(`${http.url}/attempts/${turn.attempt_id}`);
        assert.match(attempt, /class="legend waterfall-legend"/);
        assert.match(attempt, /key-wf-llm">LLM generation</);
      } finally {
        await http.close();
        await kit.close();
        process.env = saved;
      }
    });
  });
});
