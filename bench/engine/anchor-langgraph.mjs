// LangGraph.js anchor for bench/engine.bench.ts. Runs as `node --input-type=module -e <this file>` with
// cwd bench/anchors (so its packages resolve), under the Node that can load better-sqlite3.
// Prints one JSON line. Mode (argv[1]): `probe`, `rss` (imports only) or `run <size> <steps> <iterations>`.
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const [mode, sizeArg, stepsArg, itersArg] = process.argv.slice(1);
const { StateGraph, Annotation, START, END, interrupt, Command } = await import('@langchain/langgraph');
const { SqliteSaver } = await import('@langchain/langgraph-checkpoint-sqlite');

if (mode === 'probe') {
  // Loads the native better-sqlite3 binding, which only some Node versions here can.
  SqliteSaver.fromConnString(':memory:');
  console.log(JSON.stringify({ ok: true }));
  process.exit(0);
}
if (mode === 'rss') {
  await new Promise((r) => setTimeout(r, 200));
  globalThis.gc?.();
  console.log(JSON.stringify({ rss_mb: process.memoryUsage().rss / 1048576 }));
  process.exit(0);
}

const size = Number(sizeArg);
const steps = Number(stepsArg);
const iterations = Number(itersArg);
const dir = mkdtempSync(join(tmpdir(), 'lg-anchor-'));
const h = () => process.hrtime.bigint();
const us = (a, b) => Number(b - a) / 1000;

const State = Annotation.Root({
  messages: Annotation({ reducer: (a, b) => a.concat(b), default: () => [] }),
});
const msg = 'x'.repeat(size);

function loopGraph(saver, stamps, total) {
  return new StateGraph(State)
    .addNode('reason', (_s) => {
      stamps.push(h());
      return { messages: [msg] };
    })
    .addNode('tool', () => {
      stamps.push(h());
      return { messages: [msg] };
    })
    .addEdge(START, 'reason')
    .addConditionalEdges('reason', (s) => (s.messages.length >= total ? END : 'tool'))
    .addEdge('tool', 'reason')
    .compile({ checkpointer: saver });
}

// Bytes this process passed to write syscalls (/proc/self/io wchar): WAL frames and checkpoint copies.
function bytesWritten() {
  try {
    return Number(/^wchar: (\d+)$/m.exec(readFileSync('/proc/self/io', 'utf8'))?.[1] ?? Number.NaN);
  } catch {
    return Number.NaN;
  }
}

function checkpointBytes(saver, path) {
  saver.db.pragma('wal_checkpoint(TRUNCATE)');
  return statSync(path).size;
}

const loopPath = join(dir, 'loop.db');
const saver = SqliteSaver.fromConnString(loopPath);
const stamps = [];
const warm = loopGraph(saver, stamps, 20);
await warm.invoke({ messages: [] }, { configurable: { thread_id: 'warm' }, recursionLimit: 1000 });
stamps.length = 0;
const before = checkpointBytes(saver, loopPath);
const w0 = bytesWritten();
const graph = loopGraph(saver, stamps, steps);
await graph.invoke({ messages: [] }, { configurable: { thread_id: 'bench' }, recursionLimit: steps + 50 });
const after = checkpointBytes(saver, loopPath);
const w1 = bytesWritten();
const stepUs = [];
for (let i = 1; i < stamps.length; i++) stepUs.push(us(stamps[i - 1], stamps[i]));

// Suspend: a fresh thread runs to interrupt(); cold resume: a new checkpointer on the same file.
const hitlPath = join(dir, 'hitl.db');
const hitl = (s) =>
  new StateGraph(State)
    .addNode('ask', () => {
      const answer = interrupt({ form: 'approve?' });
      return { messages: [JSON.stringify(answer)] };
    })
    .addNode('after', () => ({ messages: ['resumed'] }))
    .addEdge(START, 'ask')
    .addEdge('ask', 'after')
    .addEdge('after', END)
    .compile({ checkpointer: s });
const hitlSaver = SqliteSaver.fromConnString(hitlPath);
const suspended = hitl(hitlSaver);
const suspendUs = [];
for (let i = 0; i < iterations + 20; i++) {
  const t0 = h();
  await suspended.invoke({ messages: [] }, { configurable: { thread_id: `t${i}` } });
  if (i >= 20) suspendUs.push(us(t0, h()));
}
const coldResumeUs = [];
for (let i = 0; i < iterations + 20; i++) {
  const t0 = h();
  const s = SqliteSaver.fromConnString(hitlPath);
  const out = await hitl(s).invoke(new Command({ resume: { approved: true } }), {
    configurable: { thread_id: `t${i}` },
  });
  if (i >= 20) coldResumeUs.push(us(t0, h()));
  if (!out.messages.includes('resumed')) throw new Error('langgraph resume did not finish');
  s.db.close();
}
rmSync(dir, { recursive: true, force: true });
console.log(
  JSON.stringify({
    node: process.version,
    stepUs,
    bytesPerStep: (after - before) / steps,
    writtenPerStep: (w1 - w0) / steps,
    suspendUs,
    coldResumeUs,
  }),
);
