/**
 * Accessibility: axe-core run in Chromium on one page of every kind reachable from home on a
 * demo-like store (lists, worlds, turns, a compare view, attempts, calls, runs, graphs, sessions,
 * agents, flowcharts…), plus the login page, an error page and a refused form, reports no serious or
 * critical violation. axe's source is evaluated through the DevTools protocol (`page.evaluate`), which
 * the pages' CSP does not govern — nothing is added to the page's own scripts.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { launchBrowser } from '../../src/testing/browser.ts';
import { crawl, type DemoStore, startDemoStore } from './demo-store.ts';

const launched = await launchBrowser();
const skip = 'skip' in launched ? launched.skip : false;
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: unknown[] }>;
}

/** The kind of page a URL shows: ids and hashes are placeholders, the query is ignored. */
function pageKind(url: string): string {
  const literal = new Set([
    'hash',
    'turns',
    'uses',
    'compare',
    'artifacts',
    'events',
    'branches',
    'diff',
    'conflicts',
  ]);
  const parts = new URL(url).pathname.split('/');
  return parts.map((p, i) => (i <= 1 || literal.has(p) ? p : ':id')).join('/');
}

async function seriousViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate('typeof axe !== "undefined"'))) await page.evaluate(AXE_SOURCE);
  const violations = (await page.evaluate(
    "axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations)",
  )) as Violation[];
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${v.impact} ${v.id}: ${v.help} — ${v.nodes
          .map((n) => JSON.stringify(n.target))
          .slice(0, 3)
          .join(', ')}`,
    );
}

describe('accessibility (axe-core)', { skip }, () => {
  let demo: DemoStore;
  let page: Page;
  let urls: string[] = [];

  before(async () => {
    if ('skip' in launched) return;
    demo = await startDemoStore();
    page = await launched.browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(demo.world.loginUrl);
    const cookie = (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
    const { fetched } = await crawl(cookie, `${demo.world.url}/`);
    const byKind = new Map<string, string>();
    for (const f of fetched)
      if (f.html && f.status === 200 && !byKind.has(pageKind(f.url))) byKind.set(pageKind(f.url), f.url);
    urls = [...byKind.values()];
  });
  after(async () => {
    if ('skip' in launched) return;
    await launched.close();
    await demo?.close();
  });

  test('no page kind has a serious or critical violation', async () => {
    assert.ok(urls.length >= 25, `page kinds found: ${urls.length}`);
    const found: string[] = [];
    for (const url of urls) {
      await page.goto(url);
      for (const v of await seriousViolations(page)) found.push(`${new URL(url).pathname}: ${v}`);
    }
    assert.deepEqual(found, [], `over ${urls.length} page kinds`);
  });

  test('the login page, an error page and a refused form have none either', async () => {
    if ('skip' in launched) return;
    const fresh = await launched.browser.newPage();
    try {
      await fresh.goto(`${demo.world.url}/login`);
      assert.deepEqual(await seriousViolations(fresh), [], 'login');
    } finally {
      await fresh.close();
    }
    await page.goto(`${demo.world.url}/worlds/nowhere`);
    assert.deepEqual(await seriousViolations(page), [], 'error page');
    await page.goto(`${demo.world.url}/worlds/park/turns/1`);
    await page.getByLabel('New world name').fill('park-fork');
    await page.getByRole('button', { name: 'Fork' }).click();
    await page.locator('[aria-invalid="true"]').waitFor();
    assert.deepEqual(await seriousViolations(page), [], 'refused form');
  });
});
