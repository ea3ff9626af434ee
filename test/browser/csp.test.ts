/**
 * The pages under their Content-Security-Policy, in Debian's Chromium: every page answers with the
 * hardening headers, loads its stylesheet and live script from `/assets/` with no policy violation,
 * a running turn still updates its page live, and inline script is refused. SQLite only: the store
 * is not what is tested here.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { loadScript } from '../../src/dev/scripted-model/index.ts';
import { launchBrowser } from '../../src/testing/browser.ts';
import { PARK_SCRIPT } from '../../src/testing/world-kit.ts';
import { type BrowserWorld, startBrowserWorld } from './fixture.ts';

const launched = await launchBrowser();
const skip = 'skip' in launched ? launched.skip : false;

/** The park script with turn 3 slow enough to watch live. */
function script() {
  const base = loadScript(PARK_SCRIPT);
  const slow = {
    json: {
      kind: 'final_patch',
      tool_call: null,
      patch: {
        narration: 'Bob waits.',
        effects: [{ op: 'set_entity_state', entity_id: 'bob', state: 'waiting' }],
      },
    },
    delay_ms: 1500,
  };
  return { ...base, rules: [{ match: { turn: 3, subject: 'bob' }, reply: slow }, ...base.rules] };
}

describe('pages under the Content-Security-Policy', { skip }, () => {
  let world: BrowserWorld;
  let browser: Browser;
  let page: Page;
  const violations: string[] = [];

  before(async () => {
    if ('skip' in launched) return;
    browser = launched.browser;
    world = await startBrowserWorld({ turns: 2, script: script() });
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.on('console', (m) => {
      if (/Content Security Policy|Refused to/i.test(m.text())) violations.push(m.text());
    });
    await page.addInitScript({
      content:
        "document.addEventListener('securitypolicyviolation', (e) => console.error('Refused to load: CSP ' + e.violatedDirective + ' ' + e.blockedURI));",
    });
  });
  after(async () => {
    if ('skip' in launched) return;
    await launched.close();
    await world?.close();
  });

  test('every page carries the headers and renders with its stylesheet and script, with no violation', async () => {
    const login = await page.goto(`${world.url}/login`);
    const headers = login!.headers();
    assert.match(headers['content-security-policy'] ?? '', /script-src 'self'/);
    assert.match(headers['content-security-policy'] ?? '', /frame-ancestors 'none'/);
    assert.doesNotMatch(headers['content-security-policy'] ?? '', /unsafe-inline/);
    assert.equal(headers['x-frame-options'], 'DENY');
    assert.equal(headers['x-content-type-options'], 'nosniff');
    assert.equal(headers['referrer-policy'], 'same-origin');

    await page.goto(world.loginUrl);
    for (const path of [
      '/',
      '/worlds/park',
      '/worlds/park/turns/1',
      `/attempts/${world.attempts[0]}`,
      '/runs',
    ]) {
      const res = await page.goto(`${world.url}${path}`);
      assert.equal(res!.status(), 200, path);
      assert.match(res!.headers()['content-security-policy'] ?? '', /default-src 'none'/, path);
      // The stylesheet applied: the side navigation is laid out by it, not by the browser's defaults.
      const nav = await page.evaluate("getComputedStyle(document.querySelector('nav.side')).position");
      assert.notEqual(nav, 'static', `${path}: the stylesheet applied`);
      assert.equal(
        await page.locator('style, [style], script:not([src])').count(),
        0,
        `${path}: nothing inline`,
      );
    }
    assert.deepEqual(violations, []);
  });

  test('a running turn updates its page live under the policy', async () => {
    const turn = world.kit.runtime.runTurn({ world_slug: 'park' });
    let running: string | undefined;
    for (let i = 0; i < 100 && !running; i++) {
      const list = await (await page.request.get(`${world.url}/attempts?status=running&format=json`)).json();
      running = list.items[0]?.attempt_id;
      if (!running) await new Promise((r) => setTimeout(r, 50));
    }
    assert.ok(running, 'the third turn is running');
    await page.goto(`${world.url}/attempts/${running}`);
    await page.evaluate('globalThis.marker = 1');
    await page
      .locator('[data-live-region="status"] .badge', { hasText: 'committed' })
      .waitFor({ timeout: 15_000 });
    await turn;
    assert.equal(await page.evaluate('globalThis.marker'), 1, 'no reload');
    assert.equal(await page.locator('html').getAttribute('data-live'), 'done', 'the live script ran');
    assert.deepEqual(violations, []);
  });

  test('inline script is refused', async () => {
    await page.goto(`${world.url}/`);
    await page.evaluate(
      "{ const s = document.createElement('script'); s.textContent = 'globalThis.inlineRan = true'; document.body.append(s); }",
    );
    assert.equal(await page.evaluate('globalThis.inlineRan'), undefined);
    assert.ok(
      violations.some((v) => /script-src/.test(v)),
      violations.join('\n'),
    );
  });
});
