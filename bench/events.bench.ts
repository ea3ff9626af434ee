/**
 * The event pipeline's cost, each side measured in the same run the same way (one warm-up run, then
 * the median over repeats of each run's per-step p50): a step observed by an in-process subscriber
 * against the same step unobserved (SQLite), a step fanned out with NOTIFY to a subscriber in
 * another connection against the same step without fan-out (PostgreSQL), and how long an event takes
 * to reach that other subscriber after this process delivered it.
 */

import type { EngineEvent, GraphSpec, NodeType } from '../src/engine/index.ts';
import { createEngine } from '../src/engine/index.ts';
import { openStore, parseStoreTarget } from '../src/store/index.ts';
import { openTestStore, type StoreKind } from '../src/testing/stores.ts';
import { type Bench, type BenchContext, summarize } from './lib/harness.ts';

function loopGraph(steps: number): GraphSpec {
  return {
    entry: 'l',
    channels: { n: { reducer: 'value', default: 0 } },
    nodes: [
      { id: 'l', type: 'bench_loop', config: { steps } },
      { id: 'end', type: 'terminal' },
    ],
    connectors: [
      { from: 'l', to: 'l', route: 'again' },
      { from: 'l', to: 'end', route: 'done' },
    ],
  };
}

function loopNode(stamps: bigint[]): NodeType<never> {
  const node: NodeType<{ steps: number }> = {
    type: 'bench_loop',
    execute(ctx) {
      stamps.push(process.hrtime.bigint());
      const n = ((ctx.state.n as number | null) ?? 0) + 1;
      return { kind: 'ok', writes: { n }, route: n < ctx.config.steps ? 'again' : 'done' };
    },
  };
  return node as NodeType<never>;
}

interface Case {
  kind: StoreKind;
  fanOut: boolean;
  /** Subscribe in this process. */
  local: boolean;
  /** Subscribe through a second store (another connection, as another process would). */
  remote: boolean;
}

/** One run of `steps` steps; returns the per-step p50 (µs) and remote delivery delays (µs). */
async function runCase(c: Case, steps: number): Promise<{ stepP50: number; remoteUs: number[] }> {
  const t = await openTestStore(c.kind);
  const other = c.remote ? await openStore(parseStoreTarget(t.url)) : null;
  try {
    const stamps: bigint[] = [];
    const engine = createEngine(t.store, { fanOut: c.fanOut });
    engine.register(loopNode(stamps));
    const watcher = other ? createEngine(other) : null;
    await engine.start(loopGraph(20));
    stamps.length = 0;
    const { run_id } = await engine.createRun(loopGraph(steps));
    const deliveredAt = new Map<number, bigint>();
    const remoteUs: number[] = [];
    if (c.local)
      await engine.subscribe(run_id, (e: EngineEvent) => deliveredAt.set(e.seq, process.hrtime.bigint()));
    if (watcher) {
      await watcher.subscribe(run_id, (e: EngineEvent) => {
        const sent = deliveredAt.get(e.seq);
        if (sent !== undefined) remoteUs.push(Number(process.hrtime.bigint() - sent) / 1000);
      });
    }
    const out = await engine.continueRun(run_id);
    if (out.status !== 'completed') throw new Error(`bench run ended ${out.status}`);
    // Bounded wait for the last notifications to arrive.
    for (let i = 0; i < 200 && watcher && remoteUs.length < deliveredAt.size; i++)
      await new Promise((r) => setTimeout(r, 10));
    const us: number[] = [];
    for (let i = 1; i < stamps.length; i++) us.push(Number(stamps[i]! - stamps[i - 1]!) / 1000);
    await watcher?.close();
    await engine.close();
    return { stepP50: summarize(us).p50, remoteUs };
  } finally {
    await other?.close();
    await t.dispose();
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? 0;
}

/** Runs the cases interleaved (so drift on a shared machine hits every side alike); medians per case. */
async function compare(cases: Case[], steps: number, repeats: number) {
  const p50s = cases.map(() => [] as number[]);
  const remote = cases.map(() => [] as number[]);
  for (let r = 0; r < repeats; r++) {
    for (const [i, c] of cases.entries()) {
      const { stepP50, remoteUs } = await runCase(c, steps);
      p50s[i]!.push(stepP50);
      remote[i]!.push(...remoteUs);
    }
  }
  return cases.map((_, i) => ({ stepP50: median(p50s[i]!), remote: summarize(remote[i]!) }));
}

const bench: Bench = {
  name: 'events',
  description: 'event pipeline: observed vs unobserved step (SQLite), NOTIFY fan-out vs none (PostgreSQL)',
  async run(ctx: BenchContext) {
    const steps = ctx.quick ? 100 : 400;
    const repeats = ctx.quick ? 3 : 5;
    ctx.log(`statistic: median over ${repeats} runs of each run's per-step p50, ${steps} steps per run`);
    const [bare, observed] = await compare(
      [
        { kind: 'sqlite', fanOut: false, local: false, remote: false },
        { kind: 'sqlite', fanOut: false, local: true, remote: false },
      ],
      steps,
      repeats,
    );
    ctx.row({
      case: 'sqlite step, one in-process subscriber',
      metric: 'p50',
      unit: 'µs',
      value: observed!.stepP50,
      anchor: 'the same step unobserved',
      anchor_value: bare!.stepP50,
    });
    const [quiet, fanned] = await compare(
      [
        { kind: 'postgres', fanOut: false, local: true, remote: false },
        { kind: 'postgres', fanOut: true, local: true, remote: true },
      ],
      Math.floor(steps / 2),
      repeats,
    );
    ctx.row({
      case: 'postgres step, NOTIFY fan-out to a subscriber elsewhere',
      metric: 'p50',
      unit: 'µs',
      value: fanned!.stepP50,
      anchor: 'the same step without fan-out',
      anchor_value: quiet!.stepP50,
    });
    ctx.row({
      case: 'postgres: in-process delivery → other subscriber',
      metric: 'p50',
      unit: 'µs',
      value: fanned!.remote.p50,
    });
    ctx.row({
      case: 'postgres: in-process delivery → other subscriber',
      metric: 'p99',
      unit: 'µs',
      value: fanned!.remote.p99,
    });
  },
};

export default bench;
