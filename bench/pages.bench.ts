/**
 * The browser's heaviest pages on a demo store grown to 100 turns: a park world of 100 turns (the
 * scripted model appending to Bob's memory every turn, so state and history grow) and an agent session
 * of 100 turns (each with a tool call), plus a flowchart run — the world page and an older page of its
 * timeline, a middle turn, a compare view, the last attempt, a run, an LLM call, the session, a
 * contract, the flowchart run, a search and home. For each page: its weight against the budget of
 * 500 KB, and its first byte (headers received) and whole HTML p50 against an anchor measured in the
 * same rounds — the stylesheet, a static asset served by the same process (ratio = anchor ÷ page; the
 * budget is 200 ms). Pages and anchor are fetched interleaved, round by round.
 *
 * Then the chat: a session page of that session open in Chromium follows its event stream while an
 * answer streams (one chunk every 40 ms); from each token's arrival at the server (the moment it is
 * handed to the session's followers) to its text on the page (a MutationObserver, matched by the length
 * of text shown), for the first token the page showed and for every token, against the budget of 50 ms.
 */
import { loadScript } from '../src/dev/scripted-model/index.ts';
import { createFlowchart, runFlowchart } from '../src/runtimes/flow/index.ts';
import { subscribeLive } from '../src/surfaces/http/live-text.ts';
import { CALCULATOR_SCRIPT_PATH, startAgentKit } from '../src/testing/agent-kit.ts';
import { launchBrowser } from '../src/testing/browser.ts';
import { EXAMPLE, EXAMPLE_SCRIPT, flowKit, readJson } from '../src/testing/flow-kit.ts';
import { PARK_SCRIPT } from '../src/testing/world-kit.ts';
import { serveStore, startBrowserWorld, TOKEN } from '../test/browser/fixture.ts';
import { type Bench, summarize } from './lib/harness.ts';

const BYTES_BUDGET = 500 * 1024;
const MS_BUDGET = 200;
const TOKEN_BUDGET = 50;

function parkScript() {
  const script = loadScript(PARK_SCRIPT);
  script.default = {
    json: {
      kind: 'final_patch',
      tool_call: null,
      patch: {
        narration: 'Bob walks another lap around the park and notes the weather.',
        effects: [
          {
            op: 'append_entity_memory',
            entity_id: 'bob',
            content: 'Walked another lap around the park; the wind keeps changing direction.',
          },
        ],
      },
    },
  };
  return script;
}

/** The calculator's script with a streamed story for "tell me a story" (one chunk every 40 ms). */
function chatScript() {
  const script = loadScript(CALCULATOR_SCRIPT_PATH);
  script.rules.splice(3, 0, {
    match: { last_message_contains: 'tell me a story' },
    reply: {
      json: {
        thinking: 'A short story.',
        response: 'Once upon a time a calculator counted every star in the sky and never lost count.',
        tool_calls: null,
        ecs_request: null,
        memory_update: null,
        context_updates: null,
        switch_mode: null,
      },
      chunk_chars: 12,
      chunk_delay_ms: 40,
    },
  });
  return script;
}

const bench: Bench = {
  name: 'pages',
  description:
    'browser pages at 100 turns: weight (budget 500 KB), first byte and HTML vs a static asset (budget 200 ms); chat first token on the page (budget 50 ms)',
  async run(ctx) {
    const turns = ctx.quick ? 20 : 100;
    let started = performance.now();
    const world = await startBrowserWorld({ turns, script: parkScript() });
    ctx.log(`world: ${turns} turns in ${Math.round(performance.now() - started)} ms`);
    const store = world.ts.store;
    const agents = await startAgentKit(store, { script: chatScript() });
    const flows = await flowKit(store, readJson(EXAMPLE_SCRIPT));
    const saved = { ...process.env };
    try {
      started = performance.now();
      const { session_id } = await agents.runtime.createSession({
        agent_label: 'calculator',
        user_id: 'ada',
      });
      for (let i = 0; i < turns; i++)
        await agents.runtime.sendMessage(session_id, { content: 'please add 2 and 3' });
      ctx.log(`agent session: ${turns} turns in ${Math.round(performance.now() - started)} ms`);
      const flowchart = await createFlowchart(store, readJson(EXAMPLE));
      const { flowchart_run_id } = await runFlowchart(store, flows.engine, flowchart.flowchart_id, {
        input: { message: 'jam' },
      });
      const auth = { authorization: `Bearer ${TOKEN}` };
      const json = async <T>(path: string) =>
        (await (await fetch(`${world.url}${path}`, { headers: auth })).json()) as T;
      const first = await json<{ run_id: string; source_invocations: Array<{ llm_call_id: string | null }> }>(
        `/attempts/${world.attempts[0]}?format=json`,
      );
      const llm = first.source_invocations.find((i) => i.llm_call_id)!.llm_call_id!;
      const session = await json<{ contracts: Array<{ contract_id: string }> }>(
        `/sessions/${session_id}?format=json`,
      );
      const home = await (await fetch(`${world.url}/login`)).text();
      const stylesheet = home.match(/href="(\/assets\/noema\.css[^"]*)"/)![1]!;
      const pages: Array<[string, string]> = [
        ['home', '/home'],
        ['world page', '/worlds/park'],
        ['world, an older page of the timeline', `/worlds/park?before=${Math.max(1, turns - 49)}`],
        ['world at a middle turn', `/worlds/park/turns/${Math.floor(turns / 2)}`],
        ['compare the middle turn with the latest', `/worlds/park/compare?turn=${Math.floor(turns / 2)}`],
        ['attempt page (last turn)', `/attempts/${world.attempts.at(-1)}`],
        ['run page with waterfall (turn 1)', `/runs/${first.run_id}`],
        ['LLM call page', `/llm-calls/${llm}`],
        ['agent session page', `/sessions/${session_id}`],
        ['contract page', `/contracts/${session.contracts.at(-1)!.contract_id}`],
        ['flowchart run page', `/flowchart-runs/${flowchart_run_id}`],
        ['search "lap weather"', '/search?q=lap+weather'],
      ];
      const headers = { ...auth, accept: 'text/html' };
      const get = async (path: string) => {
        const t0 = performance.now();
        const res = await fetch(`${world.url}${path}`, { headers });
        const ttfb = performance.now() - t0;
        const body = await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
        return { bytes: body.byteLength, ttfb, ms: performance.now() - t0 };
      };
      const all: Array<[string, string]> = [['anchor: the stylesheet (static)', stylesheet], ...pages];
      for (const [, path] of all) await get(path); // warm: templates compiled, caches filled
      const rounds = ctx.quick ? 3 : 10;
      const samples = new Map(
        all.map(([name]) => [name, { ttfb: [] as number[], ms: [] as number[], bytes: 0 }]),
      );
      for (let r = 0; r < rounds; r++) {
        // Rotated each round, so no page always follows the same one.
        for (let k = 0; k < all.length; k++) {
          const [name, path] = all[(k + r) % all.length]!;
          const s = samples.get(name)!;
          const got = await get(path);
          s.ttfb.push(got.ttfb * 1000);
          s.ms.push(got.ms * 1000);
          s.bytes = got.bytes;
        }
      }
      const p50 = (xs: number[]) => summarize(xs).p50 / 1000;
      const anchor = samples.get(all[0]![0])!;
      const anchorTtfb = p50(anchor.ttfb);
      const anchorMs = p50(anchor.ms);
      ctx.log(
        `anchor (stylesheet, ${anchor.bytes} bytes): first byte ${anchorTtfb.toFixed(2)} ms, whole ${anchorMs.toFixed(2)} ms`,
      );
      for (const [name] of pages) {
        const s = samples.get(name)!;
        const label = `${name}, ${turns} turns`;
        ctx.row({
          case: label,
          metric: 'page weight',
          unit: 'bytes',
          value: s.bytes,
          anchor: 'budget 500 KB',
          anchor_value: BYTES_BUDGET,
          ratio: Math.round((BYTES_BUDGET / s.bytes) * 100) / 100,
        });
        const ttfb = p50(s.ttfb);
        ctx.row({
          case: label,
          metric: 'first byte p50',
          unit: 'ms',
          value: ttfb,
          anchor: 'static stylesheet',
          anchor_value: anchorTtfb,
        });
        ctx.row({
          case: label,
          metric: 'whole HTML p50',
          unit: 'ms',
          value: p50(s.ms),
          anchor: 'static stylesheet',
          anchor_value: anchorMs,
        });
        if (ttfb > MS_BUDGET || s.bytes > BYTES_BUDGET) ctx.log(`OVER BUDGET: ${label}`);
      }
      await chatFirstToken(ctx, world.ts.store, agents, session_id, turns);
    } finally {
      process.env = saved;
      await flows.close();
      await agents.close();
      await world.close();
    }
  },
};

/** Time from a first token handed to the session's followers to its text on the open session page. */
async function chatFirstToken(
  ctx: Parameters<Bench['run']>[0],
  store: Parameters<typeof serveStore>[0],
  agents: Awaited<ReturnType<typeof startAgentKit>>,
  session_id: string,
  turns: number,
): Promise<void> {
  const launched = await launchBrowser();
  if ('skip' in launched) {
    ctx.log(`chat first token: skipped (${launched.skip})`);
    return;
  }
  // The server's own agent runtime runs the turns a browser starts, with the kit's model.
  Object.assign(process.env, agents.env);
  const served = await serveStore(store);
  try {
    const page = await launched.browser.newPage({ viewport: { width: 1280, height: 800 }, bypassCSP: true });
    await page.goto(served.loginUrl);
    // Server side: when each delta was handed to the session's followers, by the answer length it ends at.
    let handed = new Map<number, number>();
    const off = subscribeLive(session_id, (e) => {
      const d = e.data as { delta?: string; offset?: number };
      if (e.event === 'text_delta' && typeof d.delta === 'string')
        handed.set((d.offset ?? 0) + d.delta.length, Date.now());
    });
    const rounds = ctx.quick ? 3 : 10;
    const lags: number[] = [];
    const every: number[] = [];
    for (let i = 0; i < rounds + 1; i++) {
      handed = new Map();
      await page.goto(`${served.url}/sessions/${session_id}`);
      // A string (no DOM types here); the page is opened with its CSP bypassed for it. Each change of
      // the streaming box is noted with the length of text it then shows.
      await page.evaluate(`(() => {
        const box = document.querySelector('[data-live-text]');
        globalThis.shown = [];
        new MutationObserver(() => {
          if (box.textContent) globalThis.shown.push([Date.now(), box.textContent.length]);
        }).observe(box, { childList: true, characterData: true, subtree: true });
      })()`);
      await page.getByLabel('Message').fill('tell me a story');
      await page.getByRole('button', { name: 'Send' }).click();
      await page.locator('html[data-live="done"]').waitFor({ state: 'attached', timeout: 30_000 });
      const shown = (await page.evaluate('globalThis.shown')) as Array<[number, number]>;
      if (i === 0) continue; // the first round warms
      const matched = shown.flatMap(([t, length]) => {
        const at = handed.get(length);
        return at === undefined ? [] : [(t - at) * 1000];
      });
      ctx.log(
        `chat round ${i}: ${handed.size} tokens handed, ${shown.length} changes shown, ${matched.length} matched`,
      );
      if (matched.length > 0) lags.push(matched[0]!);
      every.push(...matched);
    }
    off();
    await page.close();
    const s = summarize(lags);
    ctx.log(
      `chat: first token shown per round, ms after the server had it: ${lags.map((l) => (l / 1000).toFixed(0)).join(' ')}`,
    );
    for (const [metric, v] of [
      ['first token shown p50', s.p50],
      ['first token shown max', Math.max(...lags)],
      ['every token shown p50', summarize(every).p50],
    ] as const)
      ctx.row({
        case: `chat: streamed answer, session of ${turns} turns before`,
        metric,
        unit: 'ms',
        value: v / 1000,
        anchor: 'budget 50 ms',
        anchor_value: TOKEN_BUDGET,
      });
  } finally {
    await served.close();
    await launched.close();
  }
}

export default bench;
