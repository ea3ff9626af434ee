/**
 * Acting on a world from the browser as a person would: "Run turn" with a number of turns on the
 * world's page (followed live, then without JavaScript by the page's own refresh), "Fork" from a
 * turn's page, a refused fork name shown next to its field, and a form without the CSRF token refused.
 * On every selected store (STORES).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '../../src/testing/browser.ts';
import { selectedStores } from '../../src/testing/stores.ts';
import { type BrowserWorld, startBrowserWorld } from './fixture.ts';

const launched = await launchBrowser();
const skip = 'skip' in launched ? launched.skip : false;
after(async () => {
  if (!('skip' in launched)) await launched.close();
});

for (const kind of selectedStores()) {
  describe(`world actions in the browser [${kind}]`, { skip }, () => {
    let world: BrowserWorld;
    let browser: Browser;
    let page: Page;

    before(async () => {
      if ('skip' in launched) return;
      browser = launched.browser;
      world = await startBrowserWorld({ turns: 2, kind });
      page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      await page.goto(world.loginUrl);
    });
    after(async () => {
      await page?.close();
      await world?.close();
    });

    test('"Run turn" with 2 turns runs turns 3 and 4, the world page following them without a reload', async () => {
      await page.goto(`${world.url}/worlds/park`);
      await page.evaluate('globalThis.marker = 1');
      await page.getByLabel('Turns').fill('2');
      await page.getByRole('button', { name: 'Run turn' }).click();
      await page.getByText('turn 4 of 4').waitFor({ timeout: 30_000 });
      assert.equal(await page.evaluate('globalThis.marker'), 1, 'the page was not reloaded');
      const head = (await (await page.request.get(`${world.url}/worlds/park?format=json`)).json()) as {
        head_turn: number;
      };
      assert.equal(head.head_turn, 4);
    });

    test('a number of turns out of range is refused next to its field, and no turn runs', async () => {
      await page.goto(`${world.url}/worlds/park`);
      await page.getByLabel('Turns').fill('500');
      // The browser's own range check would stop the form: a person typing past it gets the server's.
      await page.locator('form[data-form="run-turn"]').evaluate((f) => f.setAttribute('novalidate', ''));
      await page.getByRole('button', { name: 'Run turn' }).click();
      await page.locator('#run-turn-turns[aria-invalid="true"]').waitFor();
      assert.match((await page.locator('#run-turn-turns-error').textContent()) ?? '', /from 1 to 20/);
      const head = (await (await page.request.get(`${world.url}/worlds/park?format=json`)).json()) as {
        head_turn: number;
      };
      assert.equal(head.head_turn, 4);
    });

    test('"Fork" on turn 2 names a new world that starts there; a taken name is refused at its field', async () => {
      await page.goto(`${world.url}/worlds/park/turns/2`);
      await page.getByLabel('New world name').fill('park-b');
      await page.getByRole('button', { name: 'Fork' }).click();
      await page.waitForURL(`${world.url}/worlds/park-b`);
      assert.equal(await page.locator('h1').textContent(), 'World park-b');
      assert.ok(await page.getByText('turn 2 of 2').isVisible());

      await page.goto(`${world.url}/worlds/park/turns/1`);
      await page.getByLabel('New world name').fill('park-b');
      await page.getByRole('button', { name: 'Fork' }).click();
      await page.locator('#fork-new_world_slug[aria-invalid="true"]').waitFor();
      assert.match((await page.locator('#fork-new_world_slug-error').textContent()) ?? '', /already exists/);
      assert.match(page.url(), /\/worlds\/park\/turns\/1$/, 'the refusal stays on the page');
    });

    test('without JavaScript the form posts, redirects to the world and the page refreshes until the turn ends', async () => {
      const context = await browser.newContext({ javaScriptEnabled: false });
      await context.addCookies(await page.context().cookies());
      const plain = await context.newPage();
      try {
        await plain.goto(`${world.url}/worlds/park-b`);
        await plain.getByLabel('Turns').fill('1');
        await plain.getByRole('button', { name: 'Run turn' }).click();
        await plain.waitForURL(`${world.url}/worlds/park-b`);
        await plain.getByText('turn 3 of 3').waitFor({ timeout: 30_000 });
      } finally {
        await context.close();
      }
    });

    test('"Compare" shows what differs between a world and its fork, with the patches that made each side', async () => {
      await page.goto(`${world.url}/worlds/park`);
      await page.getByText('Compare with another turn or world').click();
      await page.getByLabel('Turn of park').fill('4');
      await page.getByLabel('Other world').fill('park-b');
      await page.getByLabel('Its turn').fill('3');
      await page.getByRole('button', { name: 'Compare' }).click();
      await page.waitForURL(/\/worlds\/park\/compare\?/);
      assert.equal(await page.locator('h1').textContent(), 'Compare park @ turn 4 with park-b @ turn 3');
      const cmp = (await (await page.request.get(`${page.url()}&format=json`)).json()) as {
        entities: Array<{ entity_id: string }>;
        patches: {
          a: Array<{ world_slug: string; turn: number }>;
          b: Array<{ world_slug: string; turn: number }>;
        };
      };
      assert.ok(
        cmp.entities.some((e) => e.entity_id === 'bob'),
        'bob differs',
      );
      // Since the fork at turn 2: park's turns 3 and 4 on one side, park-b's turn 3 on the other.
      assert.deepEqual(
        [...new Set(cmp.patches.a.map((p) => `${p.world_slug}@${p.turn}`))],
        ['park@3', 'park@4'],
      );
      assert.deepEqual([...new Set(cmp.patches.b.map((p) => `${p.world_slug}@${p.turn}`))], ['park-b@3']);
      const bobRow = page.locator('tr', { has: page.locator('th', { hasText: 'bob' }) });
      assert.ok((await bobRow.count()) >= 1);
      assert.ok((await page.getByRole('link', { name: /park-b turn 3 · patch #/ }).count()) >= 1);
      assert.ok((await page.getByRole('link', { name: /park turn 4 · patch #/ }).count()) >= 1);
    });

    test('a list is filtered from its search form; empty fields are no filter', async () => {
      await page.goto(`${world.url}/attempts`);
      await page.getByLabel('world slug').fill('park-b');
      await page.getByLabel('status').selectOption('committed');
      await page.getByRole('button', { name: 'Filter' }).click();
      await page.waitForURL(/\/attempts\?/);
      const rows = page.locator('main table tbody tr');
      assert.equal(await rows.count(), 1, 'park-b has one attempt of its own');
      assert.equal(await page.getByLabel('world slug').inputValue(), 'park-b', 'the form keeps the filter');
      await page.getByLabel('world slug').fill('');
      await page.getByRole('button', { name: 'Filter' }).click();
      await page.waitForURL(/world_slug=&/);
      assert.ok((await rows.count()) >= 5, 'every committed attempt again');
    });

    test('a form posted without the CSRF token is refused and runs nothing', async () => {
      const res = await page.request.post(`${world.url}/worlds/park/forms/turns`, {
        form: { turns: '1' },
        headers: { accept: 'text/html' },
      });
      assert.equal(res.status(), 403);
      const head = (await (await page.request.get(`${world.url}/worlds/park?format=json`)).json()) as {
        head_turn: number;
      };
      assert.equal(head.head_turn, 4);
    });
  });
}
