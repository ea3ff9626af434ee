/**
 * A flowchart run's seed events rebuilt from its durable rows (the run, its node runs, its
 * artifacts), in the order the run emitted them, and the identity of a seed event: what a
 * subscriber is replayed from the start, and how a fan-out knows an event it has already sent.
 */
import type { Engine, RunStatus } from '../../../engine/index.ts';
import {
  type FlowEvent,
  getFlowRun,
  listNodeArtifacts,
  type NodeArtifact,
  nodeArtifactPersistedEvent,
  nodeUpdatedEvent,
  RUN_UPDATED,
} from '../../../runtimes/flow/index.ts';
import type { Store } from '../../../store/store.ts';

/**
 * What makes a seed event itself: a node run in a status, an artifact, the run in a status. The
 * same change read twice (a step retried, a notification delivered again, a replay overlapping
 * the live stream) has the same identity.
 */
export function flowEventKey(e: FlowEvent): string {
  if (e.event === RUN_UPDATED) return `run:${e.status}`;
  if ('artifact_id' in e) return `artifact:${e.artifact_id}`;
  return `node:${e.node_run_id}:${e.status}`;
}

/** The run's artifacts, oldest first (at most 10 000). */
async function artifactsOf(store: Store, flowchart_run_id: string): Promise<NodeArtifact[]> {
  const out: NodeArtifact[] = [];
  let before: number | undefined;
  for (let pages = 0; pages < 50; pages++) {
    const page = await listNodeArtifacts(
      store,
      { flowchart_run_id },
      { limit: 200, ...(before === undefined ? {} : { before }) },
    );
    out.push(...page.items);
    if (page.items.length < 200) break;
    before = page.items.at(-1)!.artifact_id;
  }
  return out.reverse();
}

/**
 * The run's seed events as its rows stand: `flowchart.run.updated` running, then per node run (in
 * execution order) its start, its end and its artifacts, then the run's current status when it is
 * not running. Retention may have removed artifacts; what is gone is not replayed.
 */
export async function storedFlowEvents(
  store: Store,
  engine: Engine,
  run: { flowchart_id: string; flowchart_run_id: string },
): Promise<FlowEvent[]> {
  const view = await getFlowRun(store, engine, run.flowchart_run_id, run.flowchart_id);
  const artifacts = await artifactsOf(store, run.flowchart_run_id);
  const byNodeRun = new Map<string, NodeArtifact[]>();
  for (const a of artifacts) byNodeRun.set(a.node_run_id, [...(byNodeRun.get(a.node_run_id) ?? []), a]);
  const runEvent = (status: RunStatus, at: string): FlowEvent => ({
    event: RUN_UPDATED,
    flowchart_id: view.flowchart_id,
    flowchart_run_id: view.flowchart_run_id,
    status,
    created_at: view.created_at,
    updated_at: at,
    ...(status !== 'running' && view.error ? { error: view.error as never } : {}),
  });
  const out: FlowEvent[] = [];
  if (view.status === 'queued' && view.node_runs.length === 0) return out;
  out.push(runEvent('running', view.node_runs[0]?.started_at ?? view.created_at));
  for (const nr of view.node_runs) {
    out.push(
      nodeUpdatedEvent({
        ...nr,
        status: 'running',
        output_state: null,
        routing_state: null,
        error: null,
        finished_at: null,
        duration_ms: null,
      }),
    );
    if (nr.status !== 'running') out.push(nodeUpdatedEvent(nr));
    for (const a of byNodeRun.get(nr.node_run_id) ?? []) out.push(nodeArtifactPersistedEvent(a));
  }
  if (view.status !== 'running' && view.status !== 'queued') out.push(runEvent(view.status, view.updated_at));
  return out;
}
