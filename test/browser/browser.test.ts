/**
 * The browser end to end, in Debian's Chromium: log in with the one-time link, follow an entity change
 * to the LLM call that caused it, count the marks of the timeline and the bars of the waterfall, watch
 * a running turn finish without a reload, see a script-bearing string rendered as text, and be refused
 * without a session. SQLite only: these pages are read through the same catalog loaders whose storage
 * behaviour the HTTP and world specs already run on both stores; what is tested here is the browser.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { loadScript } from '../../src/dev/scripted-model/index.ts';
import { launchBrowser } from '../../src/testing/browser.ts';
import { PARK_SCRIPT } from '../../src/testing/world-kit.ts';
import { type BrowserWorld, startBrowserWorld } from './fixture.ts';

const XSS = '<script>alert(1)</script>';
const launched = await launchBrowser();
const skip = 'skip' in launched ? launched.skip : false;

/** The park script, with turn 4 writing a script-bearing string and turn 5 slow enough to watch. */
function script() {
  const base = loadScript(PARK_SCRIPT);
  const patch = (narration: string, state: string) => ({
    json: {
      kind: 'final_patch',
      tool_call: null,
      patch: { narration, effects: [{ op: 'set_entity_state', entity_id: 'bob', state }] },
    },
  });
  return {
    ...base,
    rules: [
      { match: { turn: 4, subject: 'bob' }, reply: patch(`Bob scribbles ${XSS} on a napkin.`, XSS) },
      {
        match: { turn: 5, subject: 'bob' },
        reply: { ...patch('Bob waits for the rain to stop.', 'waiting under a tree'), delay_ms: 1500 },
      },
      ...base.rules,
    ],
  };
}

describe('the browser', { skip }, () => {
  let world: BrowserWorld;
  let browser: Browser;
  let page: Page;

  before(async () => {
    if ('skip' in launched) return;
    browser = launched.browser;
    world = await startBrowserWorld({ turns: 4, script: script() });
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.on('dialog', (d) => {
      throw new Error(`a dialog opened: ${d.message()}`);
    });
  });
  after(async () => {
    if ('skip' in launched) return;
    await launched.close();
    await world?.close();
  });

  test('pages refuse access without a session; the one-time link logs in, once', async () => {
    const anonymous = await browser.newPage();
    await anonymous.goto(`${world.url}/worlds/park`);
    assert.match(new URL(anonymous.url()).pathname, /^\/login/);
    assert.equal(await anonymous.locator('.chain').count(), 0);
    const json = await anonymous.request.get(`${world.url}/worlds/park?format=json`);
    assert.equal(json.status(), 401);
    await anonymous.close();

    await page.goto(world.loginUrl);
    await page.goto(`${world.url}/`);
    assert.equal(await page.locator('h1').textContent(), 'Home');
    assert.equal(await page.locator('.card .n').first().textContent(), '1');
    const again = await browser.newPage();
    await again.goto(world.loginUrl);
    await again.goto(`${world.url}/worlds/park`);
    assert.match(new URL(again.url()).pathname, /^\/login/, 'a used login link does not log in again');
    await again.close();
  });

  test('from an entity change, one click reaches the LLM call that caused it', async () => {
    await page.goto(`${world.url}/worlds/park`);
    await page.locator('.turns a', { hasText: /^1$/ }).click();
    assert.equal(new URL(page.url()).pathname, '/worlds/park/turns/1');
    const change = page.locator('tr.change[data-entity="vending_machine"]');
    assert.match((await change.locator('td.after').textContent()) ?? '', /empty/);
    await change.locator('a.why').click();
    assert.match(new URL(page.url()).pathname, /^\/llm-calls\//);
    const messages = page.locator('.msg');
    assert.ok((await messages.count()) >= 3, 'system, user, the tool round');
    assert.match((await page.locator('pre.streamed').textContent()) ?? '', /final_patch/);
    assert.match((await page.locator('.patch').textContent()) ?? '', /vending_machine/);
    assert.match((await page.content()) ?? '', /tool buy_candy/, 'the tool result it saw');
    assert.ok(await page.locator('a[href^="/cognition-workflows/hash/"]').count());
    const json = await page.request.get(`${page.url()}?format=json`);
    assert.equal((await json.json()).model, 'scripted');
  });

  test('the timeline has a mark per patch and the waterfall a bar per source invocation', async () => {
    await page.goto(`${world.url}/worlds/park`);
    assert.equal(await page.locator('svg.timeline').count(), 1);
    assert.equal(await page.locator('svg.timeline .mark').count(), 8, '4 turns × bob and the ant');
    const attempt = await (
      await page.request.get(`${world.url}/attempts/${world.attempts[0]}?format=json`)
    ).json();
    await page.goto(`${world.url}/attempts/${world.attempts[0]}`);
    assert.equal(await page.locator('svg.waterfall').count(), 1);
    assert.equal(await page.locator('svg.waterfall .bar').count(), attempt.source_invocation_count);
    assert.equal(await page.locator('svg.waterfall .bar.kind-model_elected_tool').count(), 1);
  });

  test('a script-bearing string stored in the world renders as text', async () => {
    await page.goto(`${world.url}/worlds/park/turns/4`);
    const cell = page.locator('tr.change[data-entity="bob"] td.after');
    assert.equal(await cell.textContent(), XSS);
    assert.equal(await page.locator('main script').count(), 0);
    await page.goto(`${world.url}/worlds/park`);
    assert.match((await page.locator('main').textContent()) ?? '', /<script>alert\(1\)<\/script>/);
  });

  test('an open attempt page follows its running turn to the end without reloading', async () => {
    const turn = world.kit.runtime.runTurn({ world_slug: 'park' });
    let running: string | undefined;
    for (let i = 0; i < 100 && !running; i++) {
      const list = await (await page.request.get(`${world.url}/attempts?status=running&format=json`)).json();
      running = list.items[0]?.attempt_id;
      if (!running) await new Promise((r) => setTimeout(r, 50));
    }
    assert.ok(running, 'the fifth turn is running');
    await page.goto(`${world.url}/attempts/${running}`);
    assert.equal(await page.locator('[data-live-region="status"] .badge').textContent(), 'running');
    // A value set on the page survives only if the page is never reloaded.
    await page.evaluate('globalThis.marker = 1');
    await page
      .locator('[data-live-region="status"] .badge', { hasText: 'committed' })
      .waitFor({ timeout: 15_000 });
    await turn;
    assert.equal(await page.evaluate('globalThis.marker'), 1, 'no reload');
    assert.ok(
      Number(await page.locator('html').getAttribute('data-live-events')) > 0,
      'events came over SSE',
    );
    await page.locator('.patch').first().waitFor({ timeout: 5_000 });
    assert.equal(await page.locator('.patch').count(), 2);
  });
});
