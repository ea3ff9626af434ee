/**
 * The engine step in instructions, not microseconds: run under callgrind by `instructions.sh`, which
 * zeroes the counters just before one measured `engine.start` of the bench's loop graph and dumps
 * them just after. Load-independent where wall-clock figures on a shared machine are not: with
 * `node --predictable` (no concurrent compilation, no time-based GC heuristics) two runs of the same
 * code agree to about 0.01 %. Counts include what a fresh process pays in that window: the
 * interpreter and baseline code, compiling (on the main thread here), GC and SQLite itself.
 * `node bench/engine/instructions.ts <size> <steps> [floor]` (the runner passes a sync file prefix);
 * `floor` measures the raw commit floor's loop instead (node:sqlite, BEGIN IMMEDIATE; INSERT; COMMIT).
 */
import type { NodeType } from '../../src/engine/index.ts';
import { createEngine } from '../../src/engine/index.ts';
import { openTestStore } from '../../src/testing/stores.ts';
import { pause } from '../lib/callgrind-sync.ts';
import { floorDatabase, loopGraph } from './loop.ts';

const size = Number(process.argv[2] ?? 32);
const steps = Number(process.argv[3] ?? 200);
const msg = 'x'.repeat(size);
const reason: NodeType<{ steps: number }> = {
  type: 'bench_reason',
  execute: (ctx) =>
    ctx.step > ctx.config.steps
      ? { kind: 'ok', route: 'done' }
      : { kind: 'ok', writes: { messages: msg }, route: 'tool' },
};
const tool: NodeType<null> = {
  type: 'bench_tool',
  execute: () => ({ kind: 'ok', writes: { messages: msg } }),
};

/** The bench's floor loop (noema-cases.ts `rawCommitFloor`), 20 steps of warm-up then the measured ones. */
async function floor(): Promise<void> {
  const t = await openTestStore('sqlite', null);
  await t.store.close();
  const floor = floorDatabase(t.url);
  try {
    const step = () => floor.step(msg);
    for (let i = 0; i < 20; i++) step();
    pause('start');
    for (let i = 0; i < steps; i++) step();
    pause('end');
    console.log(JSON.stringify({ status: 'floor', steps }));
  } finally {
    floor.db.close();
    await t.dispose();
  }
}

async function engineLoop(): Promise<void> {
  const t = await openTestStore('sqlite');
  try {
    const engine = createEngine(t.store, { fanOut: false });
    for (const type of [reason, tool] as NodeType<never>[]) engine.register(type);
    await engine.start(loopGraph(20));
    const graph = loopGraph(steps);
    pause('start');
    const out = await engine.start(graph);
    pause('end');
    console.log(JSON.stringify({ status: out.status, steps: out.step }));
  } finally {
    await t.dispose();
  }
}

await (process.argv[4] === 'floor' ? floor() : engineLoop());
