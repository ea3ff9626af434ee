/**
 * Scale-out on PostgreSQL: an API process (`serve --no-work`) and 1, 2 or 4 `noema worker`
 * processes on one database. A mixed backlog (flowchart runs, agent messages with an MCP tool call)
 * is drained with every model reply held 200 ms (latency-bound) and with none (CPU-bound); its
 * throughput is reported against the 1-worker anchor measured in the same run. The worker pool grows
 * 1 → 2 → 4 and shrinks back, each size measured on the way up and on the way down, so drift over the
 * run lands on every size alike. Also: the time a streamed agent message takes executed by a worker
 * against plain `serve` executing it itself (sent in turn to both), and the claim overhead — a run's
 * creation to its first claim, from the store's own timestamps — with 4 workers idle and busy.
 */
import { availableParallelism } from 'node:os';
import { type Bench, summarize } from './lib/harness.ts';
import { bootstrapMedian } from './lib/paired.ts';
import { type Cluster, startCluster } from './scaleout/cluster.ts';
import {
  backgroundMessages,
  claimDelays,
  createSession,
  drainBacklog,
  probeRuns,
  sendMessage,
  untilIdle,
} from './scaleout/load.ts';

/** Runs a worker executes at once (the default of `noema worker`). */
const CONCURRENCY = 4;
/**
 * A model reply's simulated latency in the latency-bound load (NOEMA_BENCH_SCALEOUT_LATENCY_MS; 200 by
 * default). On a machine with few cores, a longer one shows where the work stops being CPU-bound.
 */
const LATENCY_MS = Number(process.env.NOEMA_BENCH_SCALEOUT_LATENCY_MS ?? 200);
/** Claim passes of an idle worker (NOEMA_RECOVERY_INTERVAL_MS) during the benchmark. */
const INTERVAL_MS = 250;
/** The pool sizes in the order measured: up, then down. */
const SIZES = [1, 2, 4, 4, 2, 1];

export default {
  name: 'scaleout',
  description: `API process + 1/2/4 workers on one PostgreSQL: throughput (model latency ${LATENCY_MS} ms and 0), added latency, claim overhead`,
  async run(ctx) {
    const perSlot = ctx.quick ? 1 : 4;
    const cores = availableParallelism();
    ctx.log(
      `machine: ${cores} cores (shared); worker concurrency ${CONCURRENCY}; claim interval ${INTERVAL_MS} ms`,
    );
    const cluster = await startCluster({ concurrency: CONCURRENCY, intervalMs: INTERVAL_MS });
    try {
      const store = cluster.ts.store;
      let round = 0;
      // Warm-up: every code path of both loads once, not measured.
      await cluster.scaleTo(1);
      cluster.setLatency(0);
      await drainBacklog(store, cluster.api, cluster.flowchartId, 8, round++);

      const throughput: Record<'latency' | 'cpu', Record<number, number[]>> = { latency: {}, cpu: {} };
      for (const [i, size] of SIZES.entries()) {
        await cluster.scaleTo(size);
        const runs = perSlot * CONCURRENCY * size;
        // Alternate which load goes first at each step, so neither always follows a pool change.
        const loads = i % 2 === 0 ? (['latency', 'cpu'] as const) : (['cpu', 'latency'] as const);
        for (const load of loads) {
          cluster.setLatency(load === 'latency' ? LATENCY_MS : 0);
          const seconds = await drainBacklog(store, cluster.api, cluster.flowchartId, runs, round++);
          throughput[load][size] = [...(throughput[load][size] ?? []), runs / seconds];
          ctx.log(`${load}-bound, ${size} worker(s): ${runs} runs in ${seconds.toFixed(2)} s`);
        }
      }
      for (const load of ['latency', 'cpu'] as const) {
        const anchor = mean(throughput[load][1]!);
        for (const size of [1, 2, 4]) {
          const value = mean(throughput[load][size]!);
          ctx.row({
            case: `${load === 'latency' ? `latency-bound (model ${LATENCY_MS} ms)` : `CPU-bound (model 0 ms, ${cores} cores)`}, ${size} worker(s)`,
            metric: 'throughput',
            unit: 'runs/s',
            value,
            anchor: '1 worker',
            anchor_value: anchor,
            // Throughput: above 1 means more runs per second than one worker.
            ratio: Math.round((value / anchor) * 100) / 100,
          });
        }
      }

      await claimOverhead(cluster, ctx.quick ? 8 : 20, ctx.row);
      await cluster.scaleTo(1);
      await addedLatency(cluster, ctx.quick ? 10 : 40, ctx.row);
    } finally {
      await cluster.close();
    }
  },
} satisfies Bench;

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / (xs.length || 1);

type Row = Parameters<Bench['run']>[0]['row'];

/** Claim overhead with 4 workers idle, then with them busy (background messages at half their capacity). */
async function claimOverhead(cluster: Cluster, probes: number, row: Row): Promise<void> {
  const store = cluster.ts.store;
  await cluster.scaleTo(4);
  cluster.setLatency(0);
  const idle = summarize(
    (await claimDelays(store, await probeRuns(store, cluster.api, cluster.flowchartId, probes))).map(
      (ms) => ms * 1000,
    ),
  );
  cluster.setLatency(LATENCY_MS);
  const stop = new AbortController();
  const background = backgroundMessages(cluster.api, (4 * CONCURRENCY) / 2, stop.signal);
  await new Promise((r) => setTimeout(r, 1000));
  const ids = await probeRuns(store, cluster.api, cluster.flowchartId, probes);
  stop.abort();
  await background;
  await untilIdle(store);
  const busy = summarize((await claimDelays(store, ids)).map((ms) => ms * 1000));
  for (const [label, s] of [
    ['idle', idle],
    ['busy (half their slots running)', busy],
  ] as const)
    for (const metric of ['p50', 'p99'] as const)
      row({
        case: `claim overhead, 4 workers ${label} (claim pass every ${INTERVAL_MS} ms when idle)`,
        metric,
        unit: 'ms',
        value: s[metric] / 1000,
      });
}

/**
 * A streamed agent message (model 0 ms) executed by plain `serve` itself, and by the worker of the
 * `--no-work` API, sent in turn (A B, then B A, …) so both sides meet the machine's load alike, with
 * one worker up throughout: plain serve's message is reserved to it (`StartOptions.reserve`), so the
 * worker leaves it alone. The added latency is the median of the paired differences, with its
 * bootstrap interval, beside the difference of the two sides' p50 and p99.
 */
async function addedLatency(cluster: Cluster, count: number, row: Row): Promise<void> {
  cluster.setLatency(0);
  await cluster.scaleTo(1);
  const serve = cluster.start(['serve', '--port', '0']);
  const [, inProcess] = await serve.waitFor(/serving on (http:\/\/127\.0\.0\.1:\d+)/, 60_000);
  try {
    const sides = [
      { api: inProcess!, session: await createSession(inProcess!, 'in-process'), us: [] as number[] },
      { api: cluster.api, session: await createSession(cluster.api, 'worker'), us: [] as number[] },
    ] as const;
    for (const s of sides) for (let i = 0; i < 3; i++) await sendMessage(s.api, s.session);
    for (let i = 0; i < count; i++) {
      for (const s of i % 2 === 0 ? sides : [sides[1], sides[0]]) {
        const t0 = performance.now();
        await sendMessage(s.api, s.session);
        s.us.push((performance.now() - t0) * 1000);
      }
    }
    const [local, worker] = sides.map((s) => summarize(s.us)) as [
      ReturnType<typeof summarize>,
      ReturnType<typeof summarize>,
    ];
    for (const metric of ['p50', 'p99'] as const) {
      row({
        case: 'streamed agent message (one tool call, model 0 ms), executed by a worker',
        metric,
        unit: 'ms',
        value: worker[metric] / 1000,
        anchor: 'plain serve executing it',
        anchor_value: local[metric] / 1000,
      });
      row({
        case: 'latency a worker adds to a streamed agent message (difference of the sides)',
        metric,
        unit: 'ms',
        value: (worker[metric] - local[metric]) / 1000,
      });
    }
    const added = bootstrapMedian(sides[1].us.map((us, k) => (us - sides[0].us[k]!) / 1000));
    row({
      case: `latency a worker adds to a streamed agent message, median of ${count} paired differences (95 % interval ${added.low.toFixed(2)} to ${added.high.toFixed(2)} ms)`,
      metric: 'p50',
      unit: 'ms',
      value: added.p50,
    });
  } finally {
    serve.child.kill('SIGTERM');
    await serve.exited;
  }
}
