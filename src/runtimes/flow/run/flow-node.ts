/**
 * Turns a flowchart node implementation into an engine NodeType: records the node run, replays a
 * finished one after a crash, commits the node's own writes together with its artifact (retention
 * enforced) and the finished node run in one transaction, and signals the seed's events (small
 * engine `node.updated` payloads naming durable rows; see run/events.ts).
 */
import { type ErrorCode, isNoemaError, NoemaError } from '../../../core/errors.ts';
import type { Json, NodeResult, NodeType } from '../../../engine/index.ts';
import { type Queryable, STORE_BUSY } from '../../../store/store.ts';
import { retentionOf, writeNodeArtifact } from '../artifacts/write.ts';
import {
  type CompiledNode,
  type FlowCtx,
  type FlowRuntime,
  type IncomingDoc,
  incomingDoc,
  type RunMeta,
} from './context.ts';
import { artifactSignal, nodeSignal } from './events.ts';
import {
  beginNodeRun,
  beginNodeRunSync,
  finishNodeRun,
  type NodeRun,
  type NodeRunError,
  nodeRunId,
} from './node-runs.ts';
import { readRunMeta } from './run-meta.ts';

export interface NodeArtifactOut {
  artifact_type: string;
  payload: Record<string, Json>;
  plan_id?: number | null;
  memory_id?: number | null;
  milestone_id?: number | null;
}

/** What a node implementation decides. `fail` still records the artifact (e.g. a decision's no_match). */
export interface FlowOutcome {
  output: Json;
  routing_state: Json;
  route?: string | string[];
  attachments?: Json[];
  artifact?: NodeArtifactOut;
  fail?: NodeRunError;
}

export interface FlowNodeInput {
  ctx: FlowCtx;
  rt: FlowRuntime;
  run: RunMeta;
  node: CompiledNode;
  node_run_id: string;
  incoming: IncomingDoc;
}

/** An implementation returns its outcome, or a commit function run inside the finishing transaction. */
export type FlowNodeImpl = (
  input: FlowNodeInput,
) => Promise<FlowOutcome | ((tx: Queryable) => Promise<FlowOutcome>)>;

function replay(nr: NodeRun): NodeResult {
  if (nr.status === 'failed')
    return {
      kind: 'fail',
      code: (nr.error?.code as ErrorCode | undefined) ?? 'NODE_FAILED',
      message: nr.error?.message ?? 'node failed',
    };
  const rs = (nr.routing_state ?? {}) as Record<string, Json>;
  const route = rs.route as string | string[] | undefined;
  return { kind: 'ok', output: nr.output_state, ...(route !== undefined && route !== null ? { route } : {}) };
}

export function flowNodeType(rt: FlowRuntime, type: string, impl: FlowNodeImpl): NodeType<CompiledNode> {
  return {
    type,
    async execute(ctx): Promise<NodeResult> {
      const node = ctx.config;
      const run = await readRunMeta(rt.store, ctx.run_id);
      const node_run_id = nodeRunId(ctx.run_id, ctx.step, ctx.node_id);
      const startedMs = rt.now();
      const begun = {
        node_run_id,
        flowchart_run_id: run.flowchart_run_id,
        flowchart_id: run.flowchart_id,
        flowchart_node_id: node.flowchart_node_id,
        flowchart_node_type: node.node_type,
      };
      const startedAt = new Date(startedMs).toISOString();
      // A record of the run (lease-checked): the step before it, carried (`commitsWithNext`), commits
      // with it — synchronously where the store can.
      const sync = ctx.records.runningSync((tx) => beginNodeRunSync(tx, begun, startedAt));
      const started =
        sync === STORE_BUSY ? await ctx.records.running((tx) => beginNodeRun(tx, begun, startedAt)) : sync;
      // A finished row means this execution already happened (a crash before the engine's step commit).
      if (started.status !== 'running') return replay(started);
      ctx.update(nodeSignal(started));
      let outcome: FlowOutcome;
      let artifactId: number | null = null;
      const finishedMs = () => rt.now();
      try {
        const decided = await impl({ ctx, rt, run, node, node_run_id, incoming: incomingDoc(ctx) });
        outcome = await rt.store.transaction(async (tx) => {
          const o = typeof decided === 'function' ? await decided(tx) : decided;
          if (o.artifact) {
            artifactId = await writeNodeArtifact(
              tx,
              {
                flowchart_id: run.flowchart_id,
                flowchart_run_id: run.flowchart_run_id,
                flowchart_node_id: node.flowchart_node_id,
                flowchart_node_type: node.node_type,
                node_run_id,
                artifact_type: o.artifact.artifact_type,
                plan_id: o.artifact.plan_id ?? null,
                memory_id: o.artifact.memory_id ?? null,
                milestone_id: o.artifact.milestone_id ?? null,
                payload: o.artifact.payload,
                request_id: run.request_id,
                correlation_id: run.correlation_id,
              },
              retentionOf(node.config),
              rt.now(),
            );
          }
          const end = finishedMs();
          const finished = await finishNodeRun(
            tx,
            node_run_id,
            {
              status: o.fail ? 'failed' : 'succeeded',
              output_state: o.output,
              routing_state: o.routing_state,
              error: o.fail ?? null,
            },
            new Date(end).toISOString(),
            end - startedMs,
          );
          // The run was cancelled meanwhile: the node's writes and artifact roll back with this.
          if (!finished)
            throw new NoemaError('LEASE_LOST', `node run ${node_run_id} was ended by a cancel of the run`);
          return o;
        });
      } catch (err) {
        // Hard failure: recorded on the node run (durable) before the run fails.
        if (isNoemaError(err) && err.retryable) throw err;
        const error: NodeRunError = isNoemaError(err)
          ? { code: err.code, message: err.message, details: err.details as Json }
          : { code: 'NODE_FAILED', message: err instanceof Error ? err.message : String(err) };
        const end = finishedMs();
        await finishNodeRun(
          rt.store,
          node_run_id,
          { status: 'failed', output_state: null, routing_state: null, error },
          new Date(end).toISOString(),
          end - startedMs,
        );
        ctx.update(nodeSignal({ node_run_id, status: 'failed' }));
        return { kind: 'fail', code: error.code as ErrorCode, message: error.message };
      }
      ctx.update(nodeSignal({ node_run_id, status: outcome.fail ? 'failed' : 'succeeded' }));
      if (artifactId !== null) ctx.update(artifactSignal(artifactId));
      if (outcome.fail)
        return { kind: 'fail', code: outcome.fail.code as ErrorCode, message: outcome.fail.message };
      // The node's writes are durable (its finished row): its step may commit with the next node's
      // start, which is that node's first record (a crash between them replays this one's row).
      return {
        kind: 'ok',
        commitsWithNext: true,
        output: outcome.output,
        ...(outcome.route !== undefined ? { route: outcome.route } : {}),
        ...(outcome.attachments ? { attachments: outcome.attachments } : {}),
      };
    },
  };
}
