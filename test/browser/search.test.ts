/**
 * Full-text search across what was said: LLM prompts and answers, agent messages and world narrations
 * are found by their words (every word must appear), newest first, a page of 20 at a time, each hit
 * linked to its LLM call, session or world turn and escaped; a query too long or without a word is a
 * typed 400. Over HTTP and in Chromium (typing in the navigation's search box), on every selected
 * store (STORES).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { loadScript } from '../../src/dev/scripted-model/index.ts';
import { type AgentKit, startAgentKit } from '../../src/testing/agent-kit.ts';
import { launchBrowser } from '../../src/testing/browser.ts';
import { selectedStores } from '../../src/testing/stores.ts';
import { PARK_SCRIPT } from '../../src/testing/world-kit.ts';
import { type BrowserWorld, startBrowserWorld, TOKEN } from './fixture.ts';

const launched = await launchBrowser();
after(async () => {
  if (!('skip' in launched)) await launched.close();
});

type Hit = { kind: string; ref_id: string; ref_seq: number | null; context: string | null; snippet: string };
type Found = { items: Hit[]; next: number | null };

for (const kind of selectedStores())
  describe(`search [${kind}]`, () => {
    let world: BrowserWorld;
    let agents: AgentKit;
    let session_id: string;
    const get = async (path: string, accept = 'application/json') => {
      const res = await fetch(`${world.url}${path}`, {
        headers: { authorization: `Bearer ${TOKEN}`, accept },
      });
      return { status: res.status, text: await res.text() };
    };
    const search = async (query: string): Promise<Found> => {
      const res = await get(`/search?${query}`);
      assert.equal(res.status, 200, res.text);
      return JSON.parse(res.text) as Found;
    };

    before(async () => {
      const script = loadScript(PARK_SCRIPT);
      script.rules.unshift({
        match: { turn: 2, subject: 'ant' },
        reply: {
          json: {
            kind: 'final_patch',
            tool_call: null,
            patch: {
              narration: 'The ant paints a zebra crossing and writes <script>alert(1)</script> on it.',
              effects: [],
            },
          },
        },
      });
      world = await startBrowserWorld({ turns: 3, kind, script });
      agents = await startAgentKit(world.ts.store);
      ({ session_id } = await agents.runtime.createSession({ agent_label: 'calculator', user_id: 'ada' }));
      await agents.runtime.sendMessage(session_id, { content: 'please add 2 and 3' });
    });
    after(async () => {
      await agents?.close();
      await world?.close();
    });

    test('a world narration is found by its words and links to its turn', async () => {
      const found = await search('q=zebra+crossing');
      const narration = found.items.find((h) => h.kind === 'narration');
      assert.ok(narration, JSON.stringify(found));
      assert.deepEqual([narration.ref_id, narration.ref_seq, narration.context], ['park', 2, 'ant']);
      // Every word must appear: a word no narration holds finds nothing.
      assert.deepEqual((await search('q=zebra+giraffe')).items, []);
      const page = await get('/search?q=zebra+crossing', 'text/html');
      assert.match(page.text, /href="\/worlds\/park\/turns\/2"/);
      assert.match(page.text, /<mark>zebra<\/mark> <mark>crossing<\/mark>/);
      assert.doesNotMatch(page.text, /<script>alert/);
      assert.match(page.text, /writes &lt;script&gt;alert\(1\)&lt;\/script&gt; on it/);
    });

    test('an agent message, its LLM prompt and an LLM answer are found, each linked', async () => {
      const found = await search('q=please+add');
      const message = found.items.find((h) => h.kind === 'message');
      assert.deepEqual([message?.ref_id, message?.context], [session_id, 'user']);
      const prompt = found.items.find((h) => h.kind === 'prompt');
      assert.ok(prompt, 'the reasoning prompt carries the user message');
      assert.equal((await get(`/llm-calls/${prompt.ref_id}?format=json`)).status, 200);
      const answer = (await search('q=returned&kind=answer')).items[0];
      assert.ok(answer, 'the model answer "The tool returned 5." is found');
      assert.equal(answer.kind, 'answer');
      const html = await get('/search?q=returned&kind=answer', 'text/html');
      assert.match(html.text, new RegExp(`href="/llm-calls/${answer.ref_id}"`));
      const onlyMessages = await search('q=please+add&kind=message');
      assert.ok(onlyMessages.items.length > 0 && onlyMessages.items.every((h) => h.kind === 'message'));
    });

    test('hits come 20 a page, newest first, and the next page continues where it stopped', async () => {
      for (let i = 1; i <= 45; i++)
        await world.ts.store.run(
          'INSERT INTO agent_session_messages (session_id, seq, run_id, role, content, at) VALUES (?, ?, NULL, ?, ?, ?)',
          [session_id, 1000 + i, 'user', `walk lap number ${i} around the pond`, Date.now()],
        );
      const seen: string[] = [];
      let next: number | null = null;
      let pages = 0;
      do {
        const found = await search(`q=lap+pond${next ? `&before=${next}` : ''}`);
        assert.ok(found.items.length <= 20);
        seen.push(...found.items.map((h) => h.snippet.match(/number (\d+)/)![1]!));
        next = found.next;
        pages++;
      } while (next !== null && pages < 10);
      assert.equal(pages, 3);
      assert.deepEqual(
        seen,
        Array.from({ length: 45 }, (_, i) => String(45 - i)),
      );
    });

    test('a query too long, without a word, or with an unknown kind is a typed 400', async () => {
      const long = await get(`/search?q=${'a'.repeat(201)}`);
      assert.equal(long.status, 400);
      assert.equal(JSON.parse(long.text).code, 'INVALID_INPUT');
      assert.equal((await get('/search?q=%3F%3F')).status, 400);
      assert.equal((await get('/search?q=lap&kind=%3Cb%3E')).status, 400);
      assert.equal((await get('/search?q=lap&before=-1')).status, 400);
      const html = await get(`/search?q=${'a'.repeat(201)}`, 'text/html');
      assert.equal(html.status, 400);
      assert.match(html.text, /aria-invalid="true"/);
      assert.match(html.text, /at most 200 are searched/);
      const kindHtml = await get('/search?q=lap&kind=%3Cb%3E', 'text/html');
      assert.doesNotMatch(kindHtml.text, /<b>/);
    });

    test('in Chromium: the navigation search box finds a narration and its link opens the turn', {
      skip: 'skip' in launched ? launched.skip : false,
    }, async () => {
      if ('skip' in launched) return;
      const page: Page = await launched.browser.newPage({ viewport: { width: 1280, height: 800 } });
      try {
        await page.goto(world.loginUrl);
        await page.goto(`${world.url}/worlds/park`);
        await page.getByLabel('Search text').fill('zebra crossing');
        await page.getByRole('button', { name: 'Search' }).click();
        await page.waitForURL(/\/search\?q=zebra/);
        await page.getByRole('link', { name: 'park turn 2' }).first().click();
        await page.waitForURL(/\/worlds\/park\/turns\/2$/);
        await page.goto(`${world.url}/search`);
        await page.getByLabel('Words').fill('x'.repeat(201));
        await page.getByRole('button', { name: 'Search' }).click();
        await page.getByText('at most 200 are searched').waitFor();
      } finally {
        await page.close();
      }
    });
  });
