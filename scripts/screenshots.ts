/**
 * `npm run screenshots`: runs the park world for five turns (scripted model, toy services, a throwaway
 * SQLite store), serves the browser on 127.0.0.1, logs in with the one-time link in Debian's Chromium
 * and writes PNGs of the main pages to docs/images/. `--out <dir>` writes elsewhere.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createFlowchart, runFlowchart } from '../src/runtimes/flow/index.ts';
import { forkWorld } from '../src/runtimes/world/index.ts';
import { startAgentKit } from '../src/testing/agent-kit.ts';
import { launchBrowser } from '../src/testing/browser.ts';
import { EXAMPLE, EXAMPLE_SCRIPT, flowKit, readJson } from '../src/testing/flow-kit.ts';
import { startBrowserWorld } from '../test/browser/fixture.ts';

const outArg = process.argv.indexOf('--out');
const out =
  outArg > 0 ? process.argv[outArg + 1]! : fileURLToPath(new URL('../docs/images', import.meta.url));
mkdirSync(out, { recursive: true });

const launched = await launchBrowser();
if ('skip' in launched) {
  console.error(`screenshots: ${launched.skip}`);
  process.exit(2);
}
const world = await startBrowserWorld({ turns: 5 });
// A fork at turn 3 run one turn further, for the compare page.
await forkWorld(world.ts.store, { world_slug: 'park', at_turn: 3, new_world_slug: 'park-fork' });
await world.kit.runtime.runTurn({ world_slug: 'park-fork' });
// One agent session with a tool call, so the session page has a transcript and a waterfall.
const agents = await startAgentKit(world.ts.store);
const { session_id } = await agents.runtime.createSession({ agent_label: 'calculator', user_id: 'ada' });
await agents.runtime.sendMessage(session_id, { content: 'please add 2 and 3' });
// One flowchart run of the support-triage example (memory, plan, milestone, decision and LLM nodes).
const flows = await flowKit(world.ts.store, readJson(EXAMPLE_SCRIPT));
const flowchart = await createFlowchart(world.ts.store, readJson(EXAMPLE));
const { flowchart_run_id } = await runFlowchart(world.ts.store, flows.engine, flowchart.flowchart_id, {
  input: { message: 'jam' },
});
try {
  const page = await launched.browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(world.loginUrl);
  const attempt = world.attempts[0]!;
  const inv = (await (await page.request.get(`${world.url}/attempts/${attempt}?format=json`)).json()) as {
    run_id: string;
    patches: Array<{ source_invocation_id: string }>;
    source_invocations: Array<{ source_invocation_id: string; llm_call_id: string | null }>;
  };
  const gen = inv.source_invocations.find(
    (i) => i.source_invocation_id === inv.patches[0]?.source_invocation_id,
  );
  const workflow = world.kit.doc('workflows/bob.json');
  const shots: Array<[string, string]> = [
    ['home', '/'],
    ['world', '/worlds/park'],
    ['attempt', `/attempts/${attempt}`],
    ['llm-call', `/llm-calls/${gen?.llm_call_id}`],
    ['run', `/runs/${inv.run_id}`],
    ['workflow', `/cognition-workflows/hash/${workflow}`],
    ['session', `/sessions/${session_id}`],
    ['flowchart-run', `/flowchart-runs/${flowchart_run_id}`],
    ['compare', '/worlds/park/compare?turn=5&with=park-fork&with_turn=4'],
  ];
  for (const [name, path] of shots) {
    await page.goto(`${world.url}${path}`);
    const file = join(out, `${name}.png`);
    await page.screenshot({ path: file, fullPage: false });
    console.log(file);
  }
  const phone = await launched.browser.newPage({ viewport: { width: 390, height: 844 } });
  await phone.goto(`${world.url}/login?once=none`).catch(() => {});
  await phone.context().addCookies(await page.context().cookies());
  await phone.goto(`${world.url}/worlds/park`);
  await phone.screenshot({ path: join(out, 'world-phone.png') });
  console.log(join(out, 'world-phone.png'));
} finally {
  await launched.close();
  await agents.close();
  await flows.close();
  await world.close();
}
