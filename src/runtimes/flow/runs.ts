/**
 * Flowchart runs on the engine: `createFlowEngine` registers the flowchart node types over the
 * sources executor; runs are created (durable, `queued`), executed by any process holding the
 * engine (continueRun / claimNext), read with every node run, and cancelled.
 */
import { isUuid, uuidv7 } from '../../core/ids.ts';
import {
  createEngine,
  type Engine,
  type GraphSpec,
  type Json,
  type RunError,
  type RunOutcome,
  type RunStatus,
  sourcesExecutor,
} from '../../engine/index.ts';
import type { Store } from '../../store/store.ts';
import { getFlowchart } from './flowcharts.ts';
import { endNode, llmNode, startNode } from './nodes/basic.ts';
import { decisionNode } from './nodes/decision.ts';
import { memoryNode } from './nodes/memory.ts';
import { milestoneNode } from './nodes/milestone.ts';
import { planNode } from './nodes/plan.ts';
import { engineType } from './run/compile.ts';
import { compiledGraph } from './run/compiled-graphs.ts';
import type { FlowRuntime } from './run/context.ts';
import { type FlowNodeImpl, flowNodeType } from './run/flow-node.ts';
import { cancelNodeRuns, listNodeRuns, type NodeRun } from './run/node-runs.ts';
import { readFlowRunRow, rememberRunMeta, unknownFlowRun } from './run/run-meta.ts';
import type { FlowNodeType } from './types.ts';

const IMPLS: Record<FlowNodeType, FlowNodeImpl> = {
  start: startNode,
  llm: llmNode,
  memory: memoryNode,
  plan: planNode,
  milestone: milestoneNode,
  decision: decisionNode,
  end: endNode,
};

export interface FlowEngineOptions {
  /** Operator configuration for model calls (default `process.env`). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Clock (ms) for timings and artifact retention; tests control it. */
  now?: () => number;
  /** Model for nodes that name none (default `@flow`). */
  defaultModel?: string;
  leaseMs?: number;
  owner?: string;
  /** Events to other processes (default: where the store can notify; see EngineOptions.fanOut). */
  fanOut?: boolean;
}

/** Registers the flowchart node types on an engine (one that also has a sources executor). */
export function registerFlowNodes(engine: Engine, rt: FlowRuntime): void {
  for (const [type, impl] of Object.entries(IMPLS))
    engine.register(flowNodeType(rt, engineType(type), impl) as never);
}

export function createFlowEngine(store: Store, options: FlowEngineOptions = {}): Engine {
  const engine = createEngine(store, {
    actions: sourcesExecutor(store, options.env ? { env: options.env } : {}),
    ...(options.leaseMs !== undefined ? { leaseMs: options.leaseMs } : {}),
    ...(options.owner !== undefined ? { owner: options.owner } : {}),
    ...(options.now ? { now: options.now } : {}),
    ...(options.fanOut !== undefined ? { fanOut: options.fanOut } : {}),
  });
  registerFlowNodes(engine, {
    store,
    now: options.now ?? Date.now,
    defaultModel: options.defaultModel ?? '@flow',
  });
  return engine;
}

export interface StartFlowRunInput {
  input?: Json;
  /** From the HTTP request that started the run; generated when absent. */
  request_id?: string;
  correlation_id?: string | null;
}

export interface CreatedFlowRun {
  flowchart_run_id: string;
  flowchart_id: string;
  request_id: string;
  correlation_id: string | null;
  created_at: string;
}

/** Creates a durable, queued run of the flowchart's current graph. Execute it with `engine.continueRun`. */
export function createFlowRun(
  store: Store,
  engine: Engine,
  flowchart_id: string,
  input: StartFlowRunInput = {},
): Promise<CreatedFlowRun> {
  return insertFlowRun(store, engine, flowchart_id, input, false);
}

async function insertFlowRun(
  store: Store,
  engine: Engine,
  flowchart_id: string,
  input: StartFlowRunInput,
  /** Executed here at once: the run is created claimed (`StartOptions.claim`). */
  claim: boolean,
): Promise<CreatedFlowRun> {
  const flowchart_run_id = uuidv7();
  const request_id = input.request_id ?? uuidv7();
  const correlation_id = input.correlation_id ?? null;
  const created_at = new Date().toISOString();
  // The flowchart's row and the engine's run commit together, or neither.
  await store.transaction(async (tx) => {
    // The flowchart is read in the transaction, sent with its BEGIN and the run's insert (one round
    // trip where the store pipelines), not before it: the graph to run comes from its revision. The
    // insert's own failure is the cause of any after it, so it is checked first once the graph is known.
    const reading = getFlowchart(tx, flowchart_id);
    reading.catch(() => {});
    const inserting = tx.run(
      'INSERT INTO flowchart_runs (flowchart_run_id, flowchart_id, input_json, request_id, correlation_id, created_at) VALUES (?, ?, ?, ?, ?, ?)',
      [
        flowchart_run_id,
        flowchart_id,
        JSON.stringify(input.input ?? {}),
        request_id,
        correlation_id,
        created_at,
      ],
    );
    inserting.catch(() => {});
    let graph: GraphSpec;
    try {
      graph = await compiledGraph(store, await reading, tx);
    } catch (err) {
      // The read was issued first: its failure is the cause of the insert's. Otherwise a failed
      // insert (issued before the snapshot's read) is the cause of the graph's failure.
      const readFailed = await reading.then(
        () => false,
        () => true,
      );
      if (!readFailed) await inserting;
      throw err;
    }
    try {
      await engine.createRun(graph, {
        run_id: flowchart_run_id,
        input: { input: input.input ?? {} },
        tx,
        claim,
      });
    } catch (err) {
      await inserting;
      throw err;
    }
    await inserting;
  });
  rememberRunMeta({ flowchart_run_id, flowchart_id, request_id, correlation_id });
  return { flowchart_run_id, flowchart_id, request_id, correlation_id, created_at };
}

/** createFlowRun, then execute it in this process until it stops. */
export async function runFlowchart(
  store: Store,
  engine: Engine,
  flowchart_id: string,
  input: StartFlowRunInput = {},
): Promise<{ flowchart_run_id: string; outcome: RunOutcome }> {
  const { flowchart_run_id } = await insertFlowRun(store, engine, flowchart_id, input, true);
  return { flowchart_run_id, outcome: await engine.continueRun(flowchart_run_id) };
}

export interface FlowRunView {
  flowchart_run_id: string;
  flowchart_id: string;
  status: RunStatus;
  input: Json;
  request_id: string;
  correlation_id: string | null;
  error: RunError | null;
  created_at: string;
  updated_at: string;
  node_runs: NodeRun[];
}

export async function getFlowRun(
  store: Store,
  engine: Engine,
  flowchart_run_id: string,
  flowchart_id?: string,
): Promise<FlowRunView> {
  if (!isUuid(flowchart_run_id)) throw unknownFlowRun(flowchart_run_id);
  const row = await readFlowRunRow(store, flowchart_run_id);
  if (flowchart_id !== undefined && row.flowchart_id !== flowchart_id) throw unknownFlowRun(flowchart_run_id);
  // Only status and error are needed: a tiny budget keeps the engine from returning state and outputs.
  const run = await engine.getRun(flowchart_run_id, { max_chars: 4096 });
  return {
    flowchart_run_id,
    flowchart_id: row.flowchart_id,
    status: run.status,
    input: row.input,
    request_id: row.request_id,
    correlation_id: row.correlation_id,
    error: run.error,
    created_at: row.created_at,
    updated_at: new Date(run.updated_at).toISOString(),
    node_runs: await listNodeRuns(store, flowchart_run_id),
  };
}

export async function listFlowRuns(
  store: Store,
  flowchart_id: string,
  page: { limit?: number; offset?: number } = {},
) {
  const limit = page.limit ?? 50;
  const offset = page.offset ?? 0;
  const rows = await store.all<{ flowchart_run_id: string; created_at: string }>(
    'SELECT flowchart_run_id, created_at FROM flowchart_runs WHERE flowchart_id = ? ORDER BY created_at DESC, flowchart_run_id DESC LIMIT ? OFFSET ?',
    [flowchart_id, limit, offset],
  );
  return { items: rows, limit, offset };
}

/** Cancels the run and, in the same transaction, ends its node runs still `running` (`cancelled`). */
export async function cancelFlowRun(
  store: Store,
  engine: Engine,
  flowchart_run_id: string,
  now: () => number = Date.now,
): Promise<FlowRunView> {
  await readFlowRunRow(store, flowchart_run_id);
  await engine.cancel(flowchart_run_id, {
    writes: async (tx) => void (await cancelNodeRuns(tx, flowchart_run_id, now())),
  });
  return getFlowRun(store, engine, flowchart_run_id);
}
