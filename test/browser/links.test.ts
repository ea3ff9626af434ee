/**
 * No broken links: every page reachable from home on a demo-like store (worlds, a fork, an agent
 * session with a tool call and an ECS form, a flowchart run, a reasoning-memory workspace) is crawled, with every link, stylesheet,
 * script and icon it names, and none answers 4xx or 5xx — `/favicon.ico` included. Crawled over
 * HTTP with the browser's session (what a person clicking everything would fetch), on every selected
 * store (STORES).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { launchBrowser } from '../../src/testing/browser.ts';
import { selectedStores } from '../../src/testing/stores.ts';
import { crawl, type DemoStore, getAs, startDemoStore } from './demo-store.ts';

const launched = await launchBrowser();
const skip = 'skip' in launched ? launched.skip : false;

after(async () => {
  if (!('skip' in launched)) await launched.close();
});

for (const kind of selectedStores())
  describe(`links [${kind}]`, { skip }, () => {
    let demo: DemoStore;
    let cookie: string;
    const get = (url: string, accept?: string) => getAs(cookie, url, accept);

    before(async () => {
      if ('skip' in launched) return;
      demo = await startDemoStore(kind);
      const page = await launched.browser.newPage();
      await page.goto(demo.world.loginUrl);
      cookie = (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
    });
    after(async () => {
      await demo?.close();
    });

    test('/favicon.ico answers an icon', async () => {
      const res = await get(`${demo.world.url}/favicon.ico`, 'image/*');
      assert.equal(res.status, 200);
      assert.match(res.type, /^image\//);
    });

    test('every page reachable from home answers, and every link on it does too', async () => {
      const { fetched, actions } = await crawl(cookie, `${demo.world.url}/`);
      const broken = fetched
        .filter((f) => f.status >= 400)
        .map((f) => `${f.status} ${f.url} (linked from ${f.from})`);
      // Forms post elsewhere: their actions are checked to exist (405 for GET means the route is there).
      for (const action of actions) {
        const res = await get(action, 'application/json');
        if (res.status !== 405) broken.push(`${res.status} (form action, GET) ${action}`);
      }
      assert.deepEqual(broken, [], `of ${fetched.length} pages`);
      assert.ok(fetched.length > 100, `a real crawl (${fetched.length} pages)`);
      for (const kind of [
        '/sessions/',
        '/flowchart-runs/',
        '/worlds/park-fork',
        '/llm-calls/',
        '/runs/',
        '/memory-workspaces/plans/branches/idea',
        '/memory-workspaces/plans/diff?',
        '/memory-workspaces/plans/conflicts/',
      ]) {
        assert.ok(
          fetched.some((f) => f.url.includes(kind)),
          `reached ${kind}`,
        );
      }
    });
  });
