// Mastra anchor for bench/engine.bench.ts: the loop as a Mastra user writes it, one step in
// `dountil` (each iteration appends one message: one super-step), state in workflow state
// (setState), persisted by LibSQLStore to a file. Runs as
// `node --input-type=module -e <this file>` with cwd bench/anchors. Prints one JSON line.
// Mode (argv[1]): `probe`, `rss` or `run <size> <steps> <iterations>`.
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const [mode, sizeArg, stepsArg, itersArg] = process.argv.slice(1);
const { Mastra } = await import('@mastra/core/mastra');
const { createWorkflow, createStep } = await import('@mastra/core/workflows');
const { LibSQLStore } = await import('@mastra/libsql');
const { z } = await import('zod');

if (mode === 'probe') {
  const probe = new LibSQLStore({ id: 'probe', url: ':memory:' });
  await probe.init?.();
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
const dir = mkdtempSync(join(tmpdir(), 'mastra-anchor-'));
const h = () => process.hrtime.bigint();
const us = (a, b) => Number(b - a) / 1000;
const msg = 'x'.repeat(size);
const stateSchema = z.object({ messages: z.array(z.string()) });
const empty = z.object({});

function loopWorkflow(stamps, total) {
  const step = createStep({
    id: 'step',
    inputSchema: empty,
    outputSchema: empty,
    stateSchema,
    execute: async ({ state, setState }) => {
      stamps.push(h());
      await setState({ messages: [...state.messages, msg] });
      return {};
    },
  });
  return createWorkflow({ id: 'loop', inputSchema: empty, outputSchema: empty, stateSchema })
    .dountil(step, async ({ state }) => state.messages.length >= total)
    .commit();
}

// Bytes this process passed to write syscalls (/proc/self/io wchar): WAL frames and checkpoint copies.
function bytesWritten() {
  try {
    return Number(/^wchar: (\d+)$/m.exec(readFileSync('/proc/self/io', 'utf8'))?.[1] ?? Number.NaN);
  } catch {
    return Number.NaN;
  }
}

async function open(path, workflows) {
  const storage = new LibSQLStore({ id: 'bench', url: `file:${path}` });
  const mastra = new Mastra({ storage, workflows, logger: false });
  return { mastra, storage };
}

async function fileBytes(storage, path) {
  try {
    await storage.client?.execute('PRAGMA wal_checkpoint(TRUNCATE)');
  } catch {}
  return statSync(path).size;
}

const loopPath = join(dir, 'loop.db');
const stamps = [];
const warmPath = loopPath;
{
  const { mastra, storage } = await open(warmPath, { warm: loopWorkflow(stamps, 20) });
  const warmRun = await mastra.getWorkflow('warm').createRun();
  await warmRun.start({ inputData: {}, initialState: { messages: [] } });
  stamps.length = 0;
  void storage;
}
const { mastra, storage } = await open(loopPath, { loop: loopWorkflow(stamps, steps) });
const before = await fileBytes(storage, loopPath);
const w0 = bytesWritten();
const run = await mastra.getWorkflow('loop').createRun();
const result = await run.start({ inputData: {}, initialState: { messages: [] } });
if (result.status !== 'success')
  throw new Error(`mastra loop ended ${result.status}: ${JSON.stringify(result.error ?? '')}`);
const after = await fileBytes(storage, loopPath);
const w1 = bytesWritten();
const stepUs = [];
for (let i = 1; i < stamps.length; i++) stepUs.push(us(stamps[i - 1], stamps[i]));

const ask = createStep({
  id: 'ask',
  inputSchema: empty,
  outputSchema: z.object({ approved: z.boolean() }),
  resumeSchema: z.object({ approved: z.boolean() }),
  execute: async ({ resumeData, suspend }) => {
    if (!resumeData) return await suspend({ form: 'approve?' });
    return { approved: resumeData.approved };
  },
});
const after2 = createStep({
  id: 'after',
  inputSchema: z.object({ approved: z.boolean() }),
  outputSchema: z.object({ done: z.boolean() }),
  execute: async () => ({ done: true }),
});
const hitl = () =>
  createWorkflow({ id: 'hitl', inputSchema: empty, outputSchema: z.object({ done: z.boolean() }) })
    .then(ask)
    .then(after2)
    .commit();
const hitlPath = join(dir, 'hitl.db');
const first = await open(hitlPath, { hitl: hitl() });
const suspendUs = [];
const runIds = [];
for (let i = 0; i < iterations + 20; i++) {
  const t0 = h();
  const r = await first.mastra.getWorkflow('hitl').createRun();
  const out = await r.start({ inputData: {} });
  if (i >= 20) suspendUs.push(us(t0, h()));
  if (out.status !== 'suspended') throw new Error(`mastra did not suspend: ${out.status}`);
  runIds.push(r.runId);
}
const coldResumeUs = [];
for (const [i, runId] of runIds.entries()) {
  const t0 = h();
  const cold = await open(hitlPath, { hitl: hitl() });
  const r = await cold.mastra.getWorkflow('hitl').createRun({ runId });
  const out = await r.resume({ step: 'ask', resumeData: { approved: true } });
  if (i >= 20) coldResumeUs.push(us(t0, h()));
  if (out.status !== 'success') throw new Error(`mastra resume ended ${out.status}`);
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
process.exit(0);
