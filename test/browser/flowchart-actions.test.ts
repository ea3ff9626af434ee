/**
 * Running flowcharts from the browser as a person would: "Run flowchart" with a JSON input on the
 * flowchart's page (malformed JSON refused at its field), the run page updating node by node until
 * it ends, and "Cancel run" on a run whose model is slow. On every selected store (STORES).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import {
  type ModelScript,
  type ScriptedModelServer,
  startScriptedModel,
} from '../../src/dev/scripted-model/index.ts';
import { createFlowchart } from '../../src/runtimes/flow/index.ts';
import { launchBrowser } from '../../src/testing/browser.ts';
import { EXAMPLE, EXAMPLE_SCRIPT, readJson } from '../../src/testing/flow-kit.ts';
import { openTestStore, selectedStores, type TestStore } from '../../src/testing/stores.ts';
import { type Served, serveStore } from './fixture.ts';

const launched = await launchBrowser();
const skip = 'skip' in launched ? launched.skip : false;
after(async () => {
  if (!('skip' in launched)) await launched.close();
});

/** The support-triage script; a message containing "slow" keeps the summarizing model busy for 20 s. */
function script(): ModelScript {
  const base = readJson(EXAMPLE_SCRIPT) as ModelScript;
  const first = base.rules[0]!;
  return {
    ...base,
    rules: [
      { match: { any_message_contains: 'slow' }, reply: { ...first.reply, delay_ms: 20_000 } },
      ...base.rules,
    ],
  } as ModelScript;
}

for (const kind of selectedStores()) {
  describe(`flowchart actions in the browser [${kind}]`, { skip }, () => {
    let ts: TestStore;
    let model: ScriptedModelServer;
    let served: Served;
    let browser: Browser;
    let page: Page;
    let flowchart_id: string;
    const saved = { ...process.env };

    before(async () => {
      if ('skip' in launched) return;
      browser = launched.browser;
      ts = await openTestStore(kind);
      model = await startScriptedModel({ script: script() });
      Object.assign(process.env, { NOEMA_LLM_BASE_URL: model.url, NOEMA_LLM_MODEL: 'scripted' });
      flowchart_id = (await createFlowchart(ts.store, readJson(EXAMPLE))).flowchart_id;
      served = await serveStore(ts.store);
      page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      await page.goto(served.loginUrl);
    });
    after(async () => {
      await page?.close();
      await served?.close();
      await model?.close();
      await ts?.dispose();
      process.env = saved;
    });

    test('"Run flowchart" refuses malformed JSON at its field, then runs and the run page follows it to the end', async () => {
      await page.goto(`${served.url}/flowcharts/${flowchart_id}`);
      await page.getByLabel('Input (JSON)').fill('{"message": ');
      await page.getByRole('button', { name: 'Run flowchart' }).click();
      await page.locator('#run-flowchart-input[aria-invalid="true"]').waitFor();
      assert.match((await page.locator('#run-flowchart-input-error').textContent()) ?? '', /not valid JSON/);

      await page.getByLabel('Input (JSON)').fill('{"message": "the printer jams"}');
      await page.getByRole('button', { name: 'Run flowchart' }).click();
      await page.waitForURL(/\/flowchart-runs\/[^/]+$/);
      const status = page.locator('[data-live-region="status"] .badge');
      await status.filter({ hasText: 'completed' }).waitFor({ timeout: 30_000 });
      const nodes = page.locator('[data-live-region="nodes"] .panel');
      assert.ok((await nodes.count()) >= 5, 'every node run is listed');
      const run = (await (await page.request.get(`${page.url()}?format=json`)).json()) as {
        input: unknown;
      };
      assert.deepEqual(run.input, { message: 'the printer jams' });
    });

    test('"Cancel run" stops a running run; the page says it was cancelled', async () => {
      await page.goto(`${served.url}/flowcharts/${flowchart_id}`);
      await page.getByLabel('Input (JSON)').fill('{"message": "slow printer"}');
      await page.getByRole('button', { name: 'Run flowchart' }).click();
      await page.waitForURL(/\/flowchart-runs\/[^/]+$/);
      await page.getByRole('button', { name: 'Cancel run' }).click();
      await page
        .locator('[data-live-region="status"] .badge')
        .filter({ hasText: 'cancelled' })
        .waitFor({ timeout: 15_000 });
      assert.equal(await page.getByRole('button', { name: 'Cancel run' }).count(), 0);
    });
  });
}
