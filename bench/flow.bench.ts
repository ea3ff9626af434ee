/**
 * Flowcharts (seed 003), on every selected store:
 * - a 20-node flowchart (llm, memory add/retrieve, plan, milestone, decision nodes) against the
 *   zero-latency scripted model, against the floor: the same source calls (each run's own requests,
 *   kinds and schemas, replayed from its rows) made with `invokeSource` alone — target ≤ 1.3× —
 *   and a 20-step run of trivial engine nodes (what any node costs the engine). The three sides
 *   are interleaved run by run in rotating order after equal warm-ups, timed in microseconds
 *   (wall and this process's CPU); the kernel time per node is the paired difference ÷ 20;
 * - artifact write with retention enforcement (max_count, ttl) into a table of 100k artifacts,
 *   against a plain `forever` write;
 * - the artifact list route (`GET /plans/{plan_id}/artifacts`, decision-artifacts) p99 at 100k
 *   artifacts, against a primary-key read of one artifact.
 */

import { uuidv7 } from '../src/core/ids.ts';
import { createEngine, type GraphSpec } from '../src/engine/index.ts';
import { getNodeArtifact } from '../src/runtimes/flow/artifacts/read.ts';
import { issueNodeArtifact, type Retention } from '../src/runtimes/flow/artifacts/write.ts';
import { createFlowchart, runFlowchart } from '../src/runtimes/flow/index.ts';
import { invokeSource } from '../src/sources/index.ts';
import type { Store } from '../src/store/store.ts';
import { dispatchFlowApi } from '../src/surfaces/http/flow/api.ts';
import { registerKit } from '../src/testing/engine-kit.ts';
import { flowKit } from '../src/testing/flow-kit.ts';
import { openTestStore, selectedStores } from '../src/testing/stores.ts';
import { callsOf, type Replayed, SCRIPT, twentyNodes } from './flow/graph.ts';
import { type Bench, measure, summarize } from './lib/harness.ts';

/** A 20-node chain of trivial engine nodes: what any node costs the engine. */
const TRIVIAL: GraphSpec = {
  entry: 'n0',
  channels: { messages: { reducer: 'append' } },
  nodes: [
    ...Array.from({ length: 20 }, (_, i) => ({ id: `n${i}`, type: 'append' })),
    { id: 'end', type: 'terminal' },
  ],
  connectors: Array.from({ length: 20 }, (_, i) => ({ from: `n${i}`, to: i === 19 ? 'end' : `n${i + 1}` })),
};

/** The orders of three sides: every side in every place equally often. */
const PERMUTATIONS = [
  [0, 1, 2],
  [1, 2, 0],
  [2, 0, 1],
  [2, 1, 0],
  [1, 0, 2],
  [0, 2, 1],
];

/** Times `op` in microseconds of wall and of this process's CPU, into `into` (null: untimed). */
async function sample<T>(op: () => Promise<T>, into: { wall: number[]; cpu: number[] } | null): Promise<T> {
  const c0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  const out = await op();
  const wall = Number(process.hrtime.bigint() - t0) / 1000;
  const c = process.cpuUsage(c0);
  into?.wall.push(wall);
  into?.cpu.push(c.user + c.system);
  return out;
}

/** The floor: the same calls made directly, one after another, under a run id of their own. */
async function replay(store: Store, calls: Replayed[], env: Record<string, string>): Promise<void> {
  const run_id = uuidv7();
  for (const { call } of calls) {
    const out = await invokeSource(store, { ...call, links: { ...call.links, run_id }, env });
    if (!out.ok) throw new Error(`a replayed source call failed: ${JSON.stringify(out.error)}`);
  }
}

async function seedArtifacts(store: Store, n: number): Promise<void> {
  const batch = 500;
  for (let i = 0; i < n; i += batch) {
    const rows: string[] = [];
    const params: Array<string | number> = [];
    for (let j = i; j < Math.min(n, i + batch); j++) {
      rows.push('(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
      const type = j % 2 === 0 ? 'plan' : 'decision';
      params.push(
        'bench',
        `run-${j >> 4}`,
        `${type}-${j % 8}`,
        type,
        `nr-${j}`,
        type,
        j % 2 === 0 ? 1 + (j % 16) : 0,
        '{"x":1}',
        'req',
        'forever',
        Date.now(),
        0,
        0,
      );
    }
    await store.run(
      `INSERT INTO node_artifacts (flowchart_id, flowchart_run_id, flowchart_node_id, flowchart_node_type, node_run_id,
         artifact_type, plan_id, payload, request_id, retention_mode, created_at_ms, memory_id, milestone_id) VALUES ${rows.join(', ')}`,
      params,
    );
  }
}

const bench: Bench = {
  name: 'flow',
  description:
    '20-node flowchart kernel time per node; artifact write + retention and list p99 at 100k artifacts',
  async run(ctx) {
    const runs = ctx.quick ? 6 : 60;
    const warmups = 5;
    const artifacts = ctx.quick ? 10_000 : 100_000;
    for (const kind of selectedStores()) {
      const { store, dispose } = await openTestStore(kind);
      try {
        // -- 20-node flowchart against its source calls made alone, and a trivial 20-step run
        const kit = await flowKit(store, SCRIPT);
        const fc = await createFlowchart(store, { name: 'bench', graph: twentyNodes() });
        const engine = createEngine(store);
        registerKit(engine);
        const flow = { wall: [] as number[], cpu: [] as number[] };
        const floor = { wall: [] as number[], cpu: [] as number[] };
        const trivial = { wall: [] as number[], cpu: [] as number[] };
        let calls: Replayed[] = [];
        let callsPerRun = 0;
        const runFlow = async () => {
          const { flowchart_run_id, outcome } = await runFlowchart(store, kit.engine, fc.flowchart_id, {
            input: { go: true },
          });
          if (outcome.status !== 'completed')
            throw new Error(`bench run ${outcome.status}: ${JSON.stringify(outcome.error)}`);
          return flowchart_run_id;
        };
        // Untimed: a first run gives the floor its calls; then warm-ups of every side alike.
        calls = await callsOf(store, await runFlow());
        callsPerRun = calls.length;
        const sides = [
          async (timed: boolean) => {
            const id = await sample(runFlow, timed ? flow : null);
            // The floor replays the calls of the flowchart run before it (read untimed).
            calls = await callsOf(store, id as string);
          },
          (timed: boolean) => sample(() => replay(store, calls, kit.env), timed ? floor : null),
          (timed: boolean) => sample(() => engine.start(TRIVIAL), timed ? trivial : null),
        ];
        for (let i = 0; i < warmups; i++) for (const side of sides) await side(false);
        for (let i = 0; i < runs; i++)
          for (const k of PERMUTATIONS[i % PERMUTATIONS.length]!) await sides[k]!(true);
        await kit.close();
        await engine.close();
        const p50 = (xs: number[]) => summarize(xs).p50;
        ctx.log(
          `${kind}: ${runs} runs of each side after ${warmups} warm-ups, interleaved in rotating order; ${callsPerRun} source calls per flowchart run`,
        );
        ctx.row({
          case: `${kind}: 20-node flowchart run (${callsPerRun} source calls)`,
          metric: 'wall p50',
          unit: 'µs',
          value: p50(flow.wall),
          anchor: 'the same source calls via invokeSource alone',
          anchor_value: p50(floor.wall),
        });
        const ratio = p50(flow.wall) / p50(floor.wall);
        ctx.row({
          case: `${kind}: flowchart run ÷ its source calls alone`,
          metric: 'wall p50 ratio',
          unit: '×',
          value: ratio,
          anchor: 'target',
          anchor_value: 1.3,
          ratio: Math.round((1.3 / ratio) * 1000) / 1000,
        });
        ctx.row({
          case: `${kind}: 20-node flowchart run, this process's CPU`,
          metric: 'cpu p50',
          unit: 'µs',
          value: p50(flow.cpu),
          anchor: 'the same source calls via invokeSource alone',
          anchor_value: p50(floor.cpu),
        });
        const cpuRatio = p50(flow.cpu) / p50(floor.cpu);
        ctx.row({
          case: `${kind}: flowchart run ÷ its source calls alone, this process's CPU`,
          metric: 'cpu p50 ratio',
          unit: '×',
          value: cpuRatio,
          anchor: 'target',
          anchor_value: 1.3,
          ratio: Math.round((1.3 / cpuRatio) * 1000) / 1000,
        });
        // Paired within each round (neighbours in time), so load drift lands on both sides.
        const kernel = summarize(flow.wall.map((w, i) => (w - floor.wall[i]!) / 20));
        ctx.row({
          case: `${kind}: 20-node flowchart`,
          metric: 'kernel time per node beyond its source calls (paired), p50',
          unit: 'µs',
          value: kernel.p50,
          anchor: 'engine step of a trivial node',
          anchor_value: p50(trivial.wall) / 20,
        });

        // -- artifact write + retention at 100k
        await seedArtifacts(store, artifacts);
        const base = {
          flowchart_id: 'bench',
          flowchart_run_id: 'run-x',
          flowchart_node_type: 'plan' as const,
          artifact_type: 'plan',
          plan_id: 1,
          payload: { x: 1 },
          request_id: 'req',
          correlation_id: null,
        };
        let k = 0;
        const write = (node: string, retention: Retention) => () =>
          store.transaction(async (tx) =>
            issueNodeArtifact(
              tx,
              { ...base, flowchart_node_id: node, node_run_id: `w-${k++}` },
              retention,
              Date.now(),
              () => {},
            ),
          );
        const iters = ctx.quick ? 200 : 1000;
        const plain = await measure(
          iters,
          write('plan-0', {
            retention_mode: 'forever',
            retention_ttl_seconds: 3600,
            retention_max_count: 25,
          }),
        );
        const capped = await measure(
          iters,
          write('plan-2', {
            retention_mode: 'max_count',
            retention_ttl_seconds: 3600,
            retention_max_count: 25,
          }),
        );
        const ttl = await measure(
          iters,
          write('plan-4', {
            retention_mode: 'ttl_max_count',
            retention_ttl_seconds: 3600,
            retention_max_count: 25,
          }),
        );
        ctx.row({
          case: `${kind}: write at ${artifacts / 1000}k`,
          metric: 'max_count retention, p50',
          unit: 'µs',
          value: capped.p50,
          anchor: 'forever write',
          anchor_value: plain.p50,
        });
        ctx.row({
          case: `${kind}: write at ${artifacts / 1000}k`,
          metric: 'ttl_max_count retention, p50',
          unit: 'µs',
          value: ttl.p50,
          anchor: 'forever write',
          anchor_value: plain.p50,
        });

        // -- list route p99 at 100k
        const svc = { store, engine: createEngine(store) };
        const one = (await store.get<{ id: number }>('SELECT MIN(artifact_id) AS id FROM node_artifacts'))!
          .id;
        const pk = await measure(iters, () => getNodeArtifact(store, Number(one)));
        let r = 0;
        const list = (path: string) => async () => {
          const reply = await dispatchFlowApi(svc, { method: 'GET', path, request_id: `b${r++}` });
          if (reply?.status !== 200) throw new Error(`${path}: ${JSON.stringify(reply?.json)}`);
        };
        const plans = await measure(ctx.quick ? 100 : 500, list('/plans/3/artifacts?limit=50'));
        const decisions = await measure(
          ctx.quick ? 100 : 500,
          list('/flowcharts/bench/nodes/decision-1/decision-artifacts?limit=50&offset=100'),
        );
        ctx.row({
          case: `${kind}: list at ${artifacts / 1000}k`,
          metric: 'GET /plans/{id}/artifacts, p50',
          unit: 'µs',
          value: plans.p50,
          anchor: 'primary-key read p50',
          anchor_value: pk.p50,
        });
        ctx.row({
          case: `${kind}: list at ${artifacts / 1000}k`,
          metric: 'GET /plans/{id}/artifacts, p99',
          unit: 'µs',
          value: plans.p99,
          anchor: 'primary-key read p99',
          anchor_value: pk.p99,
        });
        ctx.row({
          case: `${kind}: list at ${artifacts / 1000}k`,
          metric: 'GET …/decision-artifacts (offset 100), p99',
          unit: 'µs',
          value: decisions.p99,
          anchor: 'primary-key read p99',
          anchor_value: pk.p99,
        });
        await svc.engine.close();
      } finally {
        await dispose();
      }
    }
  },
};

export default bench;
