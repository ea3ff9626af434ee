/**
 * `node [V8 flags] bench/engine/thread-cpu.ts [steps=2000] [warmup=20]`: the engine bench's
 * reason → tool loop (32 B messages) on SQLite, one measured run of `steps` super-steps after a
 * warm-up run of `warmup`, printing per step the wall time, the CPU of the main thread
 * (`process.threadCpuUsage`) and of the whole process (`process.cpuUsage`: the checkpoint worker
 * and V8's compiler and collector threads count there), without and with the full checkpoint
 * after it. The difference between the two CPU figures is what runs off the main thread; run it
 * with `--single-threaded` or `--single-threaded-gc` to see how much of that is V8's.
 */
import { createEngine } from '../../src/engine/index.ts';
import { openTestStore } from '../../src/testing/stores.ts';
import { loopGraph } from './loop.ts';
import { benchTypes, message } from './noema-cases.ts';

const steps = Number(process.argv[2] ?? 2000);
const warmup = Number(process.argv[3] ?? 20);

const t = await openTestStore('sqlite');
try {
  const engine = createEngine(t.store, { fanOut: false });
  // The engine bench's node types: each stamps the time it runs, as there.
  for (const type of benchTypes(message(32), [])) engine.register(type);
  await engine.start(loopGraph(warmup));
  await t.store.get('PRAGMA wal_checkpoint(TRUNCATE)');
  const thread0 = process.threadCpuUsage();
  const process0 = process.cpuUsage();
  const wall0 = performance.now();
  const out = await engine.start(loopGraph(steps));
  const wall = performance.now() - wall0;
  const thread = process.threadCpuUsage(thread0);
  const whole = process.cpuUsage(process0);
  await t.store.get('PRAGMA wal_checkpoint(TRUNCATE)');
  const withCheckpoint = process.cpuUsage(process0);
  if (out.status !== 'completed') throw new Error(`the run ended ${out.status}`);
  const perStep = (c: { user: number; system: number }) => ((c.user + c.system) / steps).toFixed(2);
  console.log(
    `${steps} steps after ${warmup}, µs a step: wall ${((wall * 1000) / steps).toFixed(2)}, ` +
      `main thread CPU ${perStep(thread)}, process CPU ${perStep(whole)} (${perStep(withCheckpoint)} with the final checkpoint)`,
  );
} finally {
  await t.dispose();
}
