/**
 * An agent's answer streams onto the session page as the model produces it: each `text_delta` event
 * is appended to the page's streaming box at once (no page re-read), so the first words are shown
 * while the model is still writing the rest; once the turn ends the box empties and the stored answer
 * is in the turns. On every selected store (STORES).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { loadScript } from '../../src/dev/scripted-model/index.ts';
import { type AgentKit, CALCULATOR_SCRIPT_PATH, startAgentKit } from '../../src/testing/agent-kit.ts';
import { launchBrowser } from '../../src/testing/browser.ts';
import { openTestStore, selectedStores, type TestStore } from '../../src/testing/stores.ts';
import { type Served, serveStore } from './fixture.ts';

const launched = await launchBrowser();
const skip = 'skip' in launched ? launched.skip : false;
after(async () => {
  if (!('skip' in launched)) await launched.close();
});

export const STORY =
  'Once upon a time a calculator counted every star in the sky, one by one, and never lost count.';

/** The calculator's script with a slow, streamed answer to "tell me a story" (after the emotion and profile rules). */
export function storyScript(chunkDelayMs = 60) {
  const script = loadScript(CALCULATOR_SCRIPT_PATH);
  script.rules.splice(3, 0, {
    match: { last_message_contains: 'tell me a story' },
    reply: {
      json: {
        thinking: 'A short story.',
        response: STORY,
        tool_calls: null,
        ecs_request: null,
        memory_update: null,
        context_updates: null,
        switch_mode: null,
      },
      chunk_chars: 8,
      chunk_delay_ms: chunkDelayMs,
    },
  });
  return script;
}

for (const kind of selectedStores())
  describe(`an answer streams onto the session page [${kind}]`, { skip }, () => {
    let ts: TestStore;
    let kit: AgentKit;
    let served: Served;
    let page: Page;
    const saved = { ...process.env };
    before(async () => {
      if ('skip' in launched) return;
      ts = await openTestStore(kind);
      // 200 ms between the 12 chunks: a browser starved of CPU for a moment (a loaded CI machine) still
      // sees the answer arrive in parts (at 60 ms it once saw the whole answer first).
      kit = await startAgentKit(ts.store, { script: storyScript(200) });
      Object.assign(process.env, kit.env);
      served = await serveStore(ts.store);
      page = await launched.browser.newPage({ viewport: { width: 1280, height: 800 } });
      await page.goto(served.loginUrl);
    });
    after(async () => {
      await page?.close();
      await served?.close();
      await kit?.close();
      await ts?.dispose();
      process.env = saved;
    });

    test('the first words show while the model is still writing, then the stored answer replaces them', async () => {
      const { session_id } = await kit.runtime.createSession({ agent_label: 'calculator', user_id: 'ada' });
      await page.goto(`${served.url}/sessions/${session_id}`);
      await page.getByLabel('Message').fill('tell me a story');
      await page.getByRole('button', { name: 'Send' }).click();
      const box = page.locator('[data-live-text]');
      await box.getByText('Once upon').waitFor();
      const first = await box.textContent();
      assert.ok(first && first.length < STORY.length, `a part of the answer first: ${first}`);
      assert.ok(STORY.startsWith(first), 'the streamed words in order');
      await page.locator('[data-live-region="turns"]').getByText(STORY).first().waitFor();
      await page.locator('html[data-live="done"]').waitFor({ state: 'attached', timeout: 20_000 });
      assert.equal(await box.isHidden(), true, 'the box empties once the answer is stored');
    });
  });
