/**
 * Flowcharts (seed 003), on every selected store:
 * - a 20-node flowchart (llm, memory add/retrieve, plan, milestone, decision nodes) against the
 *   zero-latency scripted model: kernel time per node beyond its source calls, against an engine
 *   step of a trivial node (the anchor: what any node costs the engine);
 * - artifact write with retention enforcement (max_count, ttl) into a table of 100k artifacts,
 *   against a plain `forever` write;
 * - the artifact list route (`GET /plans/{plan_id}/artifacts`, decision-artifacts) p99 at 100k
 *   artifacts, against a primary-key read of one artifact.
 */
import { createEngine, type GraphSpec } from '../src/engine/index.ts';
import { getNodeArtifact } from '../src/runtimes/flow/artifacts/read.ts';
import { writeNodeArtifact } from '../src/runtimes/flow/artifacts/write.ts';
import { createFlowchart, runFlowchart } from '../src/runtimes/flow/index.ts';
import type { Store } from '../src/store/store.ts';
import { dispatchFlowApi } from '../src/surfaces/http/flow/api.ts';
import { registerKit } from '../src/testing/engine-kit.ts';
import { flowKit } from '../src/testing/flow-kit.ts';
import { openTestStore, selectedStores } from '../src/testing/stores.ts';
import { type Bench, measure, summarize } from './lib/harness.ts';

const SCRIPT = {
  rules: [
    {
      match: { any_message_contains: 'store in long-term memory' },
      reply: { json: { text: 'the printer jams' } },
    },
    {
      match: { any_message_contains: 'You maintain a plan' },
      reply: { json: { stages: [{ stage_key: 's', title: 'S' }] } },
    },
  ],
  default: { json: { text: 'summary' } },
};

/** start, three blocks of (llm, memory add, memory retrieve, plan, milestone, decision), end = 20 nodes. */
function twentyNodes() {
  const nodes: Array<Record<string, unknown>> = [{ id: 'start', node_type: 'start' }];
  for (let b = 0; b < 3; b++)
    nodes.push(
      { id: `llm${b}`, node_type: 'llm', config: { prompt: 'Summarize.' } },
      { id: `add${b}`, node_type: 'memory', config: { action: 'add', mode: 'llm_guided' } },
      {
        id: `get${b}`,
        node_type: 'memory',
        config: { action: 'retrieve', mode: 'deterministic', query_text: 'printer' },
      },
      {
        id: `plan${b}`,
        node_type: 'plan',
        config: { mode: 'llm_guided', store_mode: 'append', retention_mode: 'max_count' },
      },
      { id: `ms${b}`, node_type: 'milestone', config: { action: 'create_or_update' } },
      { id: `dec${b}`, node_type: 'decision' },
    );
  nodes.push({ id: 'end', node_type: 'end' });
  const edges = nodes.slice(1).map((n, i) => ({
    source_node_id: nodes[i]!.id,
    target_node_id: n.id,
    edge_mode: 'solid',
    ...(String(nodes[i]!.id).startsWith('dec') ? { condition: { path: '/input/go', exists: true } } : {}),
  }));
  return { nodes, edges };
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
    const runs = ctx.quick ? 5 : 20;
    const artifacts = ctx.quick ? 10_000 : 100_000;
    for (const kind of selectedStores()) {
      const { store, dispose } = await openTestStore(kind);
      try {
        // -- 20-node flowchart
        const kit = await flowKit(store, SCRIPT);
        const fc = await createFlowchart(store, { name: 'bench', graph: twentyNodes() });
        const perNode: number[] = [];
        const wallPerNode: number[] = [];
        for (let i = 0; i < runs + 2; i++) {
          const t0 = process.hrtime.bigint();
          const { flowchart_run_id, outcome } = await runFlowchart(store, kit.engine, fc.flowchart_id, {
            input: { go: true },
          });
          const wallUs = Number(process.hrtime.bigint() - t0) / 1000;
          if (outcome.status !== 'completed')
            throw new Error(`bench run ${outcome.status}: ${JSON.stringify(outcome.error)}`);
          const src = await store.get<{ ms: number; n: number }>(
            'SELECT COALESCE(SUM(duration_ms), 0) AS ms, COUNT(*) AS n FROM source_invocations WHERE run_id = ?',
            [flowchart_run_id],
          );
          if (i >= 2) {
            perNode.push((wallUs - Number(src?.ms ?? 0) * 1000) / 20);
            wallPerNode.push(wallUs / 20);
          }
        }
        await kit.close();
        const engine = createEngine(store);
        registerKit(engine);
        const graph: GraphSpec = {
          entry: 'n0',
          channels: { messages: { reducer: 'append' } },
          nodes: [
            ...Array.from({ length: 20 }, (_, i) => ({ id: `n${i}`, type: 'append' })),
            { id: 'end', type: 'terminal' },
          ],
          connectors: Array.from({ length: 20 }, (_, i) => ({
            from: `n${i}`,
            to: i === 19 ? 'end' : `n${i + 1}`,
          })),
        };
        const stepUs = await measure(
          runs,
          async () => {
            await engine.start(graph);
          },
          2,
        );
        await engine.close();
        const node = summarize(perNode);
        ctx.row({
          case: `${kind}: 20-node flowchart`,
          metric: 'wall time per node (source calls included), p50',
          unit: 'µs',
          value: summarize(wallPerNode).p50,
        });
        ctx.row({
          case: `${kind}: 20-node flowchart`,
          metric: 'kernel time per node beyond source calls, p50',
          unit: 'µs',
          value: node.p50,
          anchor: 'engine step of a trivial node',
          anchor_value: stepUs.p50 / 20,
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
        const write = (node: string, retention: Parameters<typeof writeNodeArtifact>[2]) => () =>
          store.transaction((tx) =>
            writeNodeArtifact(
              tx,
              { ...base, flowchart_node_id: node, node_run_id: `w-${k++}` },
              retention,
              Date.now(),
            ).then(() => undefined),
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
