// Mastra agent anchor for bench/agent.bench.ts: the same interaction — reason → tool → reason →
// answer — as an `Agent` from @mastra/core with @mastra/memory on @mastra/libsql storage (a thread per
// conversation of <conversation> messages, the last 3 messages recalled, every message a new `generate` on the thread), one tool,
// and the zero-latency scripted model (src/dev/scripted-model) through the AI SDK's
// OpenAI-compatible provider, which asks for the tool with native `tool_calls` (one chat.completion per call: Mastra's `generate` does not stream). The time measured is
// the framework's own per interaction: wall time minus the model calls (each from request to the
// whole streamed body received, timed inside `fetch`) and the tool's execution.
// Runs as `node --input-type=module -e <this file>` with cwd bench/anchors. Prints one JSON line.
// Mode (argv[1]): `probe` or `run <iterations> <model base URL> <conversation>`.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const [mode, itersArg, baseURL, conversationArg] = process.argv.slice(1);
const { Agent } = await import('@mastra/core/agent');
const { createTool } = await import('@mastra/core/tools');
const { Memory } = await import('@mastra/memory');
const { LibSQLStore } = await import('@mastra/libsql');
const { createOpenAICompatible } = await import('@ai-sdk/openai-compatible');
const { z } = await import('zod');

if (mode === 'probe') {
  new LibSQLStore({ id: 'probe', url: ':memory:' });
  console.log(JSON.stringify({ ok: true }));
  process.exit(0);
}

const iterations = Number(itersArg);
const dir = mkdtempSync(join(tmpdir(), 'mastra-agent-anchor-'));
const now = () => process.hrtime.bigint();

let outsideUs = 0; // model and tool time inside the current interaction
const timedFetch = async (url, init) => {
  const t0 = now();
  const res = await fetch(url, init);
  const body = await res.arrayBuffer();
  outsideUs += Number(now() - t0) / 1000;
  return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
};
const provider = createOpenAICompatible({ name: 'scripted', baseURL, apiKey: 'scripted', fetch: timedFetch });

let toolCalls = 0;
const add = createTool({
  id: 'add',
  description: 'Adds two numbers.',
  inputSchema: z.object({ a: z.number(), b: z.number() }),
  outputSchema: z.object({ sum: z.number() }),
  execute: async ({ a, b }) => {
    const t0 = now();
    toolCalls += 1;
    const out = { sum: a + b };
    outsideUs += Number(now() - t0) / 1000;
    return out;
  },
});

const agent = new Agent({
  id: 'bench',
  name: 'bench',
  instructions: 'You add numbers with the add tool.',
  model: provider.chatModel('scripted'),
  tools: { add },
  memory: new Memory({
    storage: new LibSQLStore({ id: 'anchor', url: `file:${join(dir, 'mastra.db')}` }),
    options: { lastMessages: 3 },
  }),
});

const conversation = Number(conversationArg) || 10;
const interaction = async (i) => {
  const before = toolCalls;
  const r = await agent.generate('add 2 and 3', {
    memory: { thread: `conversation-${Math.floor(i / conversation)}`, resource: 'bench' },
    maxSteps: 5,
  });
  if (r.text !== 'The sum is 5.' || toolCalls !== before + 1)
    throw new Error(
      `unexpected interaction: text ${JSON.stringify(r.text)}, tool calls ${toolCalls - before}`,
    );
};

for (let i = 0; i < 10; i++) await interaction(-1 - i);
const interactionUs = [];
const wallUs = [];
for (let i = 0; i < iterations; i++) {
  outsideUs = 0;
  const t0 = now();
  await interaction(i);
  const wall = Number(now() - t0) / 1000;
  wallUs.push(wall);
  interactionUs.push(wall - outsideUs);
}
console.log(JSON.stringify({ node: process.version, interactionUs, wallUs }));
