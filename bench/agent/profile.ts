/**
 * `node bench/agent/profile.ts [agent|direct] [interactions] [out.cpuprofile]`: runs only one side of
 * the agent bench — the interaction (one message, one MCP tool call, a new session every 10
 * messages), or its three source calls made directly with `invokeSource` — many times after
 * warm-up, on the first selected store, against the scripted model and the MCP fixture in processes
 * of their own, and prints its wall and CPU (this process, and its main thread) per interaction;
 * with a path, writes a CPU profile of the timed interactions alone there (a sampling heap profile for a
 * path ending in `.heapprofile`). Under `instructions.sh` the timed interactions are the window
 * callgrind counts.
 */
import { createAgentRuntime } from '../../src/runtimes/agent/index.ts';
import { REASONING_REPLY_DELIVERY } from '../../src/runtimes/agent/reply-schema.ts';
import { getResponseSource, invokeSource, putJsonSchema } from '../../src/sources/index.ts';
import { openTestStore, selectedStores } from '../../src/testing/stores.ts';
import { benchConversation, putBenchAgent, startAgentServices } from '../lib/agent-interaction.ts';
import { pause } from '../lib/callgrind-sync.ts';
import { startCpuProfile } from '../lib/cpu-profile.ts';

const side = process.argv[2] ?? 'agent';
if (side !== 'agent' && side !== 'direct') throw new Error('the side is agent or direct');
const n = Number(process.argv[3] ?? 200);
const services = await startAgentServices();
const { store, dispose } = await openTestStore(selectedStores()[0]!);
const runtime = await createAgentRuntime(store, { env: services.env });
try {
  const { llm, hash, definition } = await putBenchAgent(store, runtime);
  const interaction = benchConversation(runtime, hash);
  // The direct side sends the prompts of an interaction made before it, read back from its records.
  const lastRun = (await interaction()).run_id ?? '';
  const rows = await store.all<{ request_json: string }>(
    `SELECT request_json FROM source_invocations
      WHERE run_id = ? AND interface_name = 'llm_chat_completions' ORDER BY invocation_seq`,
    [lastRun],
  );
  const prompts = rows.map((r) => (JSON.parse(r.request_json) as { messages: unknown }).messages);
  const schema = await putJsonSchema(store, REASONING_REPLY_DELIVERY);
  const tool = await getResponseSource(store, definition.tools[0]!.source_ref.hash);
  const env = services.env;
  const direct = async () => {
    for (const call of [
      { source: llm, request: { messages: prompts[0] }, kind: 'llm_generation', resultSchema: schema },
      { source: tool, request: { a: 2, b: 3 }, kind: 'agent_tool_call' },
      { source: llm, request: { messages: prompts[1] }, kind: 'llm_generation', resultSchema: schema },
    ] as const) {
      const out = await invokeSource(store, { ...call, env });
      if (!out.ok) throw new Error(`a direct source call failed: ${JSON.stringify(out.error)}`);
    }
  };
  const op = side === 'agent' ? interaction : direct;
  for (let i = 0; i < 20; i++) await op();
  const stopProfile = await startCpuProfile(process.argv[4]);
  pause('start');
  const c0 = process.cpuUsage();
  const m0 = process.threadCpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await op();
  const ms = performance.now() - t0;
  const c = process.cpuUsage(c0);
  const m = process.threadCpuUsage(m0);
  pause('end');
  await stopProfile();
  console.log(
    `${side}: ${(ms / n).toFixed(2)} ms wall, ${((c.user + c.system) / 1000 / n).toFixed(2)} ms CPU (main thread ${((m.user + m.system) / 1000 / n).toFixed(2)} ms: user ${(m.user / 1000 / n).toFixed(2)}, system ${(m.system / 1000 / n).toFixed(2)}) per interaction`,
  );
} finally {
  await runtime.close();
  await dispose();
  await services.close();
}
