/**
 * Idle pages follow work started elsewhere, in Chromium: a world's page open while nothing runs shows
 * a turn started by another client (running, then committed) without a reload, and the home page shows
 * a run appear and finish; an idle page with nothing new never re-reads itself. SQLite only, like the
 * other end-to-end browser tests (the reads behind these pages run on both stores in their own specs).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { loadScript } from '../../src/dev/scripted-model/index.ts';
import { launchBrowser } from '../../src/testing/browser.ts';
import { PARK_SCRIPT } from '../../src/testing/world-kit.ts';
import { type BrowserWorld, startBrowserWorld } from './fixture.ts';

const launched = await launchBrowser();
const skip = 'skip' in launched ? launched.skip : false;

/** The park script with turns 3 and 4 slow enough (6 s for Bob) to be seen running by a 4 s poll. */
function script() {
  const base = loadScript(PARK_SCRIPT);
  const slow = (turn: number) => ({
    match: { turn, subject: 'bob' },
    reply: {
      json: {
        kind: 'final_patch',
        tool_call: null,
        patch: {
          narration: `Bob takes his time in turn ${turn}.`,
          effects: [{ op: 'set_entity_state', entity_id: 'bob', state: `slow ${turn}` }],
        },
      },
      delay_ms: 6000,
    },
  });
  return { ...base, rules: [slow(3), slow(4), ...base.rules] };
}

const watched = async (page: Page) =>
  Number((await page.locator('html').getAttribute('data-live-watched')) ?? 0);

describe('idle pages follow work started elsewhere', { skip }, () => {
  let world: BrowserWorld;
  let page: Page;

  before(async () => {
    if ('skip' in launched) return;
    world = await startBrowserWorld({ turns: 2, script: script() });
    page = await launched.browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(world.loginUrl);
  });
  after(async () => {
    if ('skip' in launched) return;
    await launched.close();
    await world?.close();
  });

  test("a world's page shows a turn another client started, running then committed, without reloading", async () => {
    await page.goto(`${world.url}/worlds/park`);
    assert.match((await page.locator('[data-live-region="status"]').textContent()) ?? '', /turn 2 of 2/);
    await page.evaluate('globalThis.marker = 1');
    // Nothing new: the idle page polls its small list but never re-reads itself.
    await page.waitForTimeout(4_500);
    assert.equal(await watched(page), 0, 'no re-read while nothing changed');
    const turn = world.kit.runtime.runTurn({ world_slug: 'park' });
    await page
      .locator('[data-live-region="status"] .badge', { hasText: 'running' })
      .waitFor({ timeout: 10_000 });
    await turn;
    await page
      .locator('[data-live-region="status"]', { hasText: 'turn 3 of 3' })
      .waitFor({ timeout: 10_000 });
    assert.equal(await page.evaluate('globalThis.marker'), 1, 'no reload');
    assert.ok((await watched(page)) >= 1);
  });

  test('the home page shows a run start and finish', async () => {
    await page.goto(`${world.url}/`);
    await page.evaluate('globalThis.marker = 1');
    const before = await page.locator('[data-live-region="home"] .badge', { hasText: 'running' }).count();
    assert.equal(before, 0);
    const turn = world.kit.runtime.runTurn({ world_slug: 'park' });
    await page
      .locator('[data-live-region="home"] .badge', { hasText: 'running' })
      .first()
      .waitFor({ timeout: 10_000 });
    await turn;
    // Polled by a locator, not a page function: the page's CSP refuses string evaluation.
    await page
      .locator('[data-live-region="home"]', { hasText: 'running' })
      .waitFor({ state: 'detached', timeout: 10_000 });
    assert.equal(await page.evaluate('globalThis.marker'), 1, 'no reload');
  });
});
