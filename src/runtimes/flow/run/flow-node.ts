/**
 * Turns a flowchart node implementation into an engine NodeType: records the node run, replays a
 * finished one after a crash, commits the node's own writes together with its artifact (retention
 * enforced) and the finished node run in one transaction, and signals the seed's events (small
 * engine `node.updated` payloads naming durable rows; see run/events.ts).
 */
import { type ErrorCode, isNoemaError, NoemaError } from '../../../core/errors.ts';
import type { Json, NodeResult, NodeType } from '../../../engine/index.ts';
import { isStoreFault } from '../../../store/index.ts';
import type { Queryable, Transaction } from '../../../store/store.ts';
import { findNodeArtifact } from '../artifacts/read.ts';
import {
  issueNodeArtifact,
  type NewNodeArtifact,
  nodeArtifactStatements,
  retentionOf,
} from '../artifacts/write.ts';
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
  beginNodeRunStatement,
  finishNodeRunStatement,
  getNodeRun,
  type NodeRun,
  type NodeRunError,
  type NodeRunFinish,
  type NodeRunStart,
  nodeRunId,
  startedAndFinishedStatement,
} from './node-runs.ts';
import { holdStart, takeHeldStart } from './node-start.ts';
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

/**
 * An implementation returns its outcome, or a commit function run inside the finishing transaction.
 * A commit function may issue its last writes without awaiting them (`tx.write`): they travel with
 * the artifact, the finished row and the COMMIT, and a failure of theirs is the node's, as if awaited.
 */
export type FlowNodeImpl = (
  input: FlowNodeInput,
) => Promise<FlowOutcome | ((tx: Transaction) => Promise<FlowOutcome>)>;

const NODE_WRITES = { durability: 'deferred' } as const;

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

/** An error of the node's own writes in its finishing transaction (not of the transaction's fence). */
class NodeWritesFailed {
  readonly cause: unknown;
  constructor(cause: unknown) {
    this.cause = cause;
  }
}

/** The finish found its node run ended meanwhile (a cancel of the run): the transaction rolls back. */
class NodeRunEnded extends Error {}

export function flowNodeType(rt: FlowRuntime, type: string, impl: FlowNodeImpl): NodeType<CompiledNode> {
  return {
    type,
    async execute(ctx): Promise<NodeResult> {
      const node = ctx.config;
      const run = await readRunMeta(rt.store, ctx.run_id);
      const node_run_id = nodeRunId(ctx.run_id, ctx.step, ctx.node_id);
      // A finished row means this execution already happened (a crash before the engine's step commit).
      if (ctx.mayRepeat) {
        const earlier = await getNodeRun(rt.store, node_run_id);
        if (earlier && earlier.status !== 'running') return replay(earlier);
      }
      const startedMs = rt.now();
      const start: NodeRunStart = {
        node_run_id,
        flowchart_run_id: run.flowchart_run_id,
        flowchart_id: run.flowchart_id,
        flowchart_node_id: node.flowchart_node_id,
        flowchart_node_type: node.node_type,
      };
      const startedAt = new Date(startedMs).toISOString();
      // The start commits with the node's first record — its first model call's, made before the call,
      // or its finish — and with the step before it (carried, `commitsWithNext`): one commit, not three.
      // Held until then: a node that makes no call writes its start and finish as one statement.
      holdStart(ctx, () =>
        ctx.records.carry(
          [beginNodeRunStatement(start, startedAt)],
          nodeSignal({ node_run_id, status: 'running' }),
        ),
      );
      let held: boolean | null = null;
      /** The finish's statement: the start's insert itself while the start is held (and its signal carried). */
      const finishStatement = (f: NodeRunFinish, endMs: number) => {
        held ??= takeHeldStart(ctx);
        const at = new Date(endMs).toISOString();
        return held
          ? startedAndFinishedStatement(start, startedAt, f, at, endMs - startedMs)
          : finishNodeRunStatement(node_run_id, f, at, endMs - startedMs);
      };
      /** Writes the finish in `tx`: false when the node run was ended meanwhile (a cancel). */
      const finishIn = async (tx: Queryable, f: NodeRunFinish, endMs: number) => {
        const w = finishStatement(f, endMs);
        return (await tx.run(w.sql, w.params)).changes === 1;
      };
      /** The running signal of a start written with the finish, before the finish's own. */
      const startSignal = () => {
        if (held) ctx.update(nodeSignal({ node_run_id, status: 'running' }));
      };
      // Hard failure: recorded on the node run (durable, with its start) before the run fails.
      const failed = async (err: unknown): Promise<NodeResult> => {
        if (isNoemaError(err) && err.retryable) throw err;
        const error: NodeRunError = isNoemaError(err)
          ? { code: err.code, message: err.message, details: err.details as Json }
          : { code: 'NODE_FAILED', message: err instanceof Error ? err.message : String(err) };
        const end = rt.now();
        await ctx.records.running((tx) =>
          finishIn(tx, { status: 'failed', output_state: null, routing_state: null, error }, end),
        );
        startSignal();
        ctx.update(nodeSignal({ node_run_id, status: 'failed' }));
        return { kind: 'fail', code: error.code as ErrorCode, message: error.message };
      };
      let decided: Awaited<ReturnType<FlowNodeImpl>>;
      try {
        decided = await impl({ ctx, rt, run, node, node_run_id, incoming: incomingDoc(ctx) });
      } catch (err) {
        return failed(err);
      }
      const artifactOf = (a: NodeArtifactOut): NewNodeArtifact => ({
        flowchart_id: run.flowchart_id,
        flowchart_run_id: run.flowchart_run_id,
        flowchart_node_id: node.flowchart_node_id,
        flowchart_node_type: node.node_type,
        node_run_id,
        artifact_type: a.artifact_type,
        plan_id: a.plan_id ?? null,
        memory_id: a.memory_id ?? null,
        milestone_id: a.milestone_id ?? null,
        payload: a.payload,
        request_id: run.request_id,
        correlation_id: run.correlation_id,
      });
      // A finish without writes of the node's own (its row, and an artifact no node reads) need not be
      // durable before the next node runs: it commits with the next node's first record, as the step
      // does, its signals with it.
      if (typeof decided !== 'function' && !decided.fail) {
        const end = rt.now();
        const finish = {
          status: 'succeeded' as const,
          output_state: decided.output,
          routing_state: decided.routing_state,
          error: null,
        };
        const artifact = decided.artifact
          ? nodeArtifactStatements(artifactOf(decided.artifact), retentionOf(node.config), end)
          : null;
        const finishing = finishStatement(finish, end);
        if (held) ctx.records.carry([], nodeSignal({ node_run_id, status: 'running' }));
        ctx.records.carry(
          [...(artifact ? [artifact.insert, ...artifact.retention] : []), finishing],
          nodeSignal({ node_run_id, status: 'succeeded' }),
        );
        if (decided.artifact)
          ctx.records.carry(
            [],
            artifactSignal({ node_run_id, artifact_type: decided.artifact.artifact_type }),
          );
        return succeeded(decided);
      }
      let outcome: FlowOutcome;
      let artifactId: number | null = null;
      try {
        // A record of the run: lease-checked, after the steps and the start it carries. It precedes no
        // call (the next one's record commits synchronously and flushes it) and acknowledges nothing
        // (the run's end commits synchronously), so it does not wait for the disk: a database crash
        // before then loses only writes the reclaimed run redoes.
        outcome = await ctx.records.running(async (tx) => {
          let o: FlowOutcome;
          try {
            o = typeof decided === 'function' ? await decided(tx) : decided;
            const now = rt.now();
            // Issued, not awaited: where the store pipelines, the node's last writes, its artifact, its
            // finished row and the COMMIT travel in one round trip (none reads another). The finish
            // changes no row when the node run was ended meanwhile (a cancel of the run): then the
            // database refuses the transaction, and the node's writes and artifact roll back with it.
            if (o.artifact)
              issueNodeArtifact(tx, artifactOf(o.artifact), retentionOf(node.config), now, (id) => {
                artifactId = id;
              });
            const f = finishStatement(
              {
                status: o.fail ? 'failed' : 'succeeded',
                output_state: o.output,
                routing_state: o.routing_state,
                error: o.fail ?? null,
              },
              now,
            );
            tx.writeOne(f.sql, f.params, () => new NodeRunEnded());
          } catch (err) {
            throw new NodeWritesFailed(err);
          }
          return o;
        }, NODE_WRITES);
      } catch (err) {
        const cause = err instanceof NodeWritesFailed ? err.cause : err;
        if (cause instanceof NodeRunEnded)
          return failed(
            new NoemaError('LEASE_LOST', `node run ${node_run_id} was ended by a cancel of the run`),
          );
        // The node's own writes refused (at once, or where the store pipelines, once the transaction
        // ended): the node's failure. The lease lost, the store failing: the engine's to handle.
        if (err instanceof NodeWritesFailed || (isNoemaError(err) && !isStoreFault(err)))
          return failed(cause);
        throw err;
      }
      // An artifact an earlier execution of this node run inserted (a replay after a crash), if kept.
      if (outcome.artifact && artifactId === null)
        artifactId =
          (await findNodeArtifact(rt.store, node_run_id, outcome.artifact.artifact_type))?.artifact_id ??
          null;
      startSignal();
      ctx.update(nodeSignal({ node_run_id, status: outcome.fail ? 'failed' : 'succeeded' }));
      if (artifactId !== null) ctx.update(artifactSignal(artifactId));
      if (outcome.fail)
        return { kind: 'fail', code: outcome.fail.code as ErrorCode, message: outcome.fail.message };
      return succeeded(outcome);
    },
  };
}

/**
 * The step of a node whose finish is committed or carried: it commits with the next node's first
 * record, after this node's finish (a crash between them replays this one's row, or runs it again).
 */
function succeeded(outcome: FlowOutcome): NodeResult {
  return {
    kind: 'ok',
    commitsWithNext: true,
    output: outcome.output,
    ...(outcome.route !== undefined ? { route: outcome.route } : {}),
    ...(outcome.attachments ? { attachments: outcome.attachments } : {}),
  };
}
