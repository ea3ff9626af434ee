/**
 * No broken links: every page reachable from home on a demo-like store (worlds, a fork, an agent
 * session with a tool call and an ECS form, a flowchart run) is crawled, with every link, stylesheet,
 * script and icon it names, and none answers 4xx or 5xx — `/favicon.ico` included. Crawled over
 * HTTP with the browser's session (what a person clicking everything would fetch); SQLite only: the
 * pages' storage behaviour is tested on both stores by their own specs.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { launchBrowser } from '../../src/testing/browser.ts';
import { type DemoStore, startDemoStore } from './demo-store.ts';

const launched = await launchBrowser();
const skip = 'skip' in launched ? launched.skip : false;

/** Pages fetched at most (each list's next pages included). */
const MAX_PAGES = 900;

function linksOf(html: string, base: string): string[] {
  const out: string[] = [];
  for (const m of html.matchAll(/\s(?:href|src|action)="([^"]*)"/g)) {
    const raw = m[1]!
      .replace(/&amp;/g, '&')
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'");
    if (raw.startsWith('#') || raw === '') continue;
    const url = new URL(raw, base);
    if (url.origin !== new URL(base).origin) continue;
    url.hash = '';
    out.push(url.href);
  }
  return out;
}

describe('links', { skip }, () => {
  let demo: DemoStore;
  let cookie: string;
  /** A GET with the browser's session; a stream's body is not waited for (its status is the answer). */
  const get = async (url: string, accept = 'text/html') => {
    const stop = new AbortController();
    const res = await fetch(url, { headers: { accept, cookie }, redirect: 'manual', signal: stop.signal });
    const type = res.headers.get('content-type') ?? '';
    const html = type.startsWith('text/html') ? await res.text() : null;
    stop.abort();
    return { status: res.status, type, html };
  };

  before(async () => {
    if ('skip' in launched) return;
    demo = await startDemoStore();
    const page = await launched.browser.newPage();
    await page.goto(demo.world.loginUrl);
    cookie = (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
  });
  after(async () => {
    if ('skip' in launched) return;
    await launched.close();
    await demo?.close();
  });

  test('/favicon.ico answers an icon', async () => {
    const res = await get(`${demo.world.url}/favicon.ico`, 'image/*');
    assert.equal(res.status, 200);
    assert.match(res.type, /^image\//);
  });

  test('every page reachable from home answers, and every link on it does too', async () => {
    const home = `${demo.world.url}/`;
    const seen = new Set<string>([home]);
    const from = new Map<string, string>();
    const queue = [home];
    const broken: string[] = [];
    let fetched = 0;
    // Forms post elsewhere: their actions are checked to exist (405 for GET means the route is there).
    const actions = new Set<string>();
    while (queue.length && fetched < MAX_PAGES) {
      const url = queue.shift()!;
      const res = await get(url);
      fetched++;
      if (res.status >= 400) {
        broken.push(`${res.status} ${url} (linked from ${from.get(url)})`);
        continue;
      }
      const html = res.html;
      if (html === null) continue;
      for (const m of html.matchAll(/<form method="post" action="([^"]+)"/g))
        actions.add(new URL(m[1]!, url).href);
      for (const link of linksOf(html, url)) {
        if (seen.has(link) || actions.has(link) || link.endsWith('/logout')) continue;
        seen.add(link);
        from.set(link, url);
        queue.push(link);
      }
    }
    for (const action of actions) {
      const res = await get(action, 'application/json');
      if (res.status !== 405) broken.push(`${res.status} (form action, GET) ${action}`);
    }
    assert.deepEqual(broken, [], `of ${fetched} pages`);
    assert.ok(fetched > 100, `a real crawl (${fetched} pages)`);
    for (const kind of ['/sessions/', '/flowchart-runs/', '/worlds/park-fork', '/llm-calls/', '/runs/']) {
      assert.ok(
        [...seen].some((u) => u.includes(kind)),
        `reached ${kind}`,
      );
    }
  });
});
