// LangGraph.js agent anchor for bench/agent.bench.ts: the same interaction shape — reason → tool →
// reason → answer — as a StateGraph with its SqliteSaver checkpointer, a thread per conversation
// (a new one every <conversation> messages, as its users start one per conversation: a thread kept
// for hundreds of invokes grows its state, and each checkpoint with it), every message a new invoke. The model and the tool are zero-cost stubs, so the time
// measured is the framework's own time per interaction (what Noema's "kernel time beyond source
// calls" measures). Runs as `node --input-type=module -e <this file>` with cwd bench/anchors.
// Prints one JSON line. Mode (argv[1]): `probe` or `run <iterations> <conversation>`.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const [mode, itersArg, conversationArg] = process.argv.slice(1);
const { StateGraph, Annotation, START, END } = await import('@langchain/langgraph');
const { SqliteSaver } = await import('@langchain/langgraph-checkpoint-sqlite');

if (mode === 'probe') {
  SqliteSaver.fromConnString(':memory:');
  console.log(JSON.stringify({ ok: true }));
  process.exit(0);
}

const iterations = Number(itersArg);
const dir = mkdtempSync(join(tmpdir(), 'lg-agent-anchor-'));
const State = Annotation.Root({
  messages: Annotation({ reducer: (a, b) => a.concat(b), default: () => [] }),
  pending: Annotation({ reducer: (_a, b) => b, default: () => [] }),
  results: Annotation({ reducer: (_a, b) => b, default: () => [] }),
});

// The stub model: first call asks for the add tool, the call after a result answers.
const reason = (s) => {
  if (s.results.length === 0)
    return {
      pending: [{ name: 'add', args: { a: 2, b: 3 } }],
      messages: [{ role: 'assistant', thinking: 'use add' }],
    };
  return { pending: [], results: [], messages: [{ role: 'assistant', content: 'The sum is 5.' }] };
};
const tool = (s) => ({
  pending: [],
  results: s.pending.map((c) => ({
    name: c.name,
    status: 'COMPLETED',
    result: { sum: c.args.a + c.args.b },
  })),
});

const saver = SqliteSaver.fromConnString(join(dir, 'agent.db'));
const graph = new StateGraph(State)
  .addNode('reason', reason)
  .addNode('tool', tool)
  .addEdge(START, 'reason')
  .addConditionalEdges('reason', (s) => (s.pending.length > 0 ? 'tool' : END))
  .addEdge('tool', 'reason')
  .compile({ checkpointer: saver });

const conversation = Number(conversationArg) || 10;
const config = (i) => ({
  configurable: { thread_id: `conversation-${Math.floor(i / conversation)}` },
  recursionLimit: 50,
});
for (let i = 0; i < 10; i++)
  await graph.invoke({ messages: [{ role: 'user', content: 'add 2 and 3' }] }, config(-1 - i));
const interactionUs = [];
for (let i = 0; i < iterations; i++) {
  const t0 = process.hrtime.bigint();
  await graph.invoke({ messages: [{ role: 'user', content: 'add 2 and 3' }] }, config(i));
  interactionUs.push(Number(process.hrtime.bigint() - t0) / 1000);
}
console.log(JSON.stringify({ node: process.version, interactionUs }));
