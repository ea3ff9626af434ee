/**
 * A demo-like store for crawling the browser: the park world run for a few turns, a fork of it, an
 * agent session with a tool call and an answered ECS form, and a flowchart run — served by a real
 * `noema serve` surface (test/browser/fixture.ts).
 */
import { createFlowchart, runFlowchart } from '../../src/runtimes/flow/index.ts';
import { forkWorld } from '../../src/runtimes/world/index.ts';
import { startAgentKit } from '../../src/testing/agent-kit.ts';
import { EXAMPLE, EXAMPLE_SCRIPT, flowKit, readJson } from '../../src/testing/flow-kit.ts';
import { type BrowserWorld, startBrowserWorld } from './fixture.ts';

export interface DemoStore {
  world: BrowserWorld;
  session_id: string;
  agent_hash: string;
  flowchart_id: string;
  flowchart_run_id: string;
  close(): Promise<void>;
}

export async function startDemoStore(): Promise<DemoStore> {
  const world = await startBrowserWorld({ turns: 3 });
  const store = world.ts.store;
  await forkWorld(store, { world_slug: 'park', at_turn: 2, new_world_slug: 'park-fork' });
  const agents = await startAgentKit(store);
  const { session_id } = await agents.runtime.createSession({ agent_label: 'calculator', user_id: 'ada' });
  await agents.runtime.sendMessage(session_id, { content: 'please add 2 and 3' });
  const waiting = await agents.runtime.sendMessage(session_id, { content: 'book a slot' });
  await agents.runtime.respondEcs({
    session_id,
    contract_id: waiting.outcome.waiting[0]!.contract_id,
    response: { day: 'monday' },
  });
  await agents.runtime.continueEcs({ session_id });
  const flows = await flowKit(store, readJson(EXAMPLE_SCRIPT));
  const flowchart = await createFlowchart(store, readJson(EXAMPLE));
  const { flowchart_run_id } = await runFlowchart(store, flows.engine, flowchart.flowchart_id, {
    input: { message: 'jam' },
  });
  return {
    world,
    session_id,
    agent_hash: agents.agent_hash,
    flowchart_id: flowchart.flowchart_id,
    flowchart_run_id,
    async close() {
      await agents.close();
      await flows.close();
      await world.close();
    },
  };
}
