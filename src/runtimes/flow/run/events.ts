/**
 * The seed's three events, built from durable rows: `flowchart.node.updated`,
 * `flowchart.run.updated` and `flowchart:node_artifact:persisted`. Nodes signal the first and third
 * as small engine `node.updated` payloads naming a row (so they always fit PostgreSQL's NOTIFY and
 * reach other processes whole); `subscribeFlowRun` reads the rows and emits the full events, in order.
 */
import type { Engine, EngineEvent, Json, RunStatus } from '../../../engine/index.ts';
import { isStoreFault } from '../../../store/index.ts';
import type { Queryable } from '../../../store/store.ts';
import { findNodeArtifact, getNodeArtifact, type NodeArtifact } from '../artifacts/read.ts';
import { getNodeRun, type NodeRun, type NodeRunStatus } from './node-runs.ts';

export const NODE_UPDATED = 'flowchart.node.updated';
export const RUN_UPDATED = 'flowchart.run.updated';
export const ARTIFACT_PERSISTED = 'flowchart:node_artifact:persisted';

export interface FlowNodeUpdated {
  event: typeof NODE_UPDATED;
  flowchart_id: string;
  flowchart_run_id: string;
  flowchart_node_id: string;
  flowchart_node_type: string;
  node_run_id: string;
  status: string;
  execution_index: number;
  output_state: Json | null;
  routing_state: Json | null;
  started_at: string;
  finished_at: string | null;
  duration_ms: number | null;
  error?: Json;
}

export interface FlowRunUpdated {
  event: typeof RUN_UPDATED;
  flowchart_id: string;
  flowchart_run_id: string;
  status: RunStatus;
  created_at: string;
  updated_at: string;
  error?: Json;
}

export interface FlowArtifactPersisted {
  event: typeof ARTIFACT_PERSISTED;
  flowchart_id: string;
  flowchart_run_id: string;
  flowchart_node_id: string;
  flowchart_node_type: string;
  node_run_id: string;
  artifact_id: number;
  artifact_type: string;
  artifact: NodeArtifact;
  request_id: string;
  correlation_id: string | null;
}

export type FlowEvent = FlowNodeUpdated | FlowRunUpdated | FlowArtifactPersisted;

export function nodeUpdatedEvent(nr: NodeRun): FlowNodeUpdated {
  return {
    event: NODE_UPDATED,
    flowchart_id: nr.flowchart_id,
    flowchart_run_id: nr.flowchart_run_id,
    flowchart_node_id: nr.flowchart_node_id,
    flowchart_node_type: nr.flowchart_node_type,
    node_run_id: nr.node_run_id,
    status: nr.status,
    execution_index: nr.execution_index,
    output_state: nr.output_state,
    routing_state: nr.routing_state,
    started_at: nr.started_at,
    finished_at: nr.finished_at,
    duration_ms: nr.duration_ms,
    ...(nr.error ? { error: nr.error as unknown as Json } : {}),
  };
}

export function nodeArtifactPersistedEvent(a: NodeArtifact): FlowArtifactPersisted {
  return {
    event: ARTIFACT_PERSISTED,
    flowchart_id: a.flowchart_id,
    flowchart_run_id: a.flowchart_run_id,
    flowchart_node_id: a.flowchart_node_id,
    flowchart_node_type: a.flowchart_node_type,
    node_run_id: a.node_run_id,
    artifact_id: a.artifact_id,
    artifact_type: a.artifact_type,
    artifact: a,
    request_id: a.request_id,
    correlation_id: a.correlation_id,
  };
}

/** The `node.updated` data a node emits: which node run changed, and to what status. */
export function nodeSignal(nr: { node_run_id: string; status: NodeRunStatus }): Json {
  return { flow_event: NODE_UPDATED, node_run_id: nr.node_run_id, status: nr.status };
}

/** Names the artifact by its id, or (written with the run's next commit, its id unknown) by node run and type. */
export function artifactSignal(artifact: number | { node_run_id: string; artifact_type: string }): Json {
  return typeof artifact === 'number'
    ? { flow_event: ARTIFACT_PERSISTED, artifact_id: artifact }
    : { flow_event: ARTIFACT_PERSISTED, ...artifact };
}

type Signal = {
  flow_event: string;
  node_run_id?: string;
  status?: NodeRunStatus;
  artifact_id?: number;
  artifact_type?: string;
};

async function resolve(q: Queryable, s: Signal): Promise<FlowEvent | null> {
  if (s.flow_event === NODE_UPDATED && typeof s.node_run_id === 'string') {
    const nr = await getNodeRun(q, s.node_run_id);
    if (!nr) return null;
    // A "running" signal read after the node finished still reports the start.
    if (s.status === 'running')
      return nodeUpdatedEvent({
        ...nr,
        status: 'running',
        output_state: null,
        routing_state: null,
        error: null,
        finished_at: null,
        duration_ms: null,
      });
    return nodeUpdatedEvent(nr);
  }
  if (s.flow_event === ARTIFACT_PERSISTED && typeof s.artifact_id === 'number') {
    // Retention may already have removed it (a TTL shorter than the run); then there is nothing to
    // announce. A store that cannot read it now says so (the caller may try again).
    const a = await getNodeArtifact(q, s.artifact_id).catch((err: unknown) => {
      if (isStoreFault(err)) throw err;
      return null;
    });
    return a ? nodeArtifactPersistedEvent(a) : null;
  }
  if (
    s.flow_event === ARTIFACT_PERSISTED &&
    typeof s.node_run_id === 'string' &&
    typeof s.artifact_type === 'string'
  ) {
    const a = await findNodeArtifact(q, s.node_run_id, s.artifact_type);
    return a ? nodeArtifactPersistedEvent(a) : null;
  }
  return null;
}

/**
 * The seed event an engine event of a flowchart run stands for, read from the store; null for engine
 * events that are not flowchart events (node.started, contract transitions…) or rows retention removed.
 */
export async function toFlowEvent(
  store: Queryable,
  run: { flowchart_id: string; flowchart_run_id: string; created_at: string },
  e: EngineEvent,
): Promise<FlowEvent | null> {
  if (e.type === 'node.updated' && typeof e.data === 'object' && e.data !== null && 'flow_event' in e.data)
    return resolve(store, e.data as unknown as Signal);
  if (e.type === 'run.updated')
    return {
      event: RUN_UPDATED,
      flowchart_id: run.flowchart_id,
      flowchart_run_id: run.flowchart_run_id,
      status: e.status,
      created_at: run.created_at,
      updated_at: new Date(e.at).toISOString(),
      ...(e.error ? { error: e.error as unknown as Json } : {}),
    };
  return null;
}

/**
 * Subscribes to one flowchart run's events (across processes on PostgreSQL, as the engine's events
 * are). Node signals are resolved from the store; `run.updated` becomes `flowchart.run.updated`.
 * Events are delivered in the order the engine emitted them. Returns unsubscribe.
 */
export async function subscribeFlowRun(
  engine: Engine,
  store: Queryable,
  run: { flowchart_id: string; flowchart_run_id: string; created_at: string },
  listener: (e: FlowEvent) => void,
  onError: (err: unknown) => void = () => {},
): Promise<() => Promise<void>> {
  let chain: Promise<void> = Promise.resolve();
  const unsubscribe = await engine.subscribe(run.flowchart_run_id, (e: EngineEvent) => {
    chain = chain.then(async () => {
      try {
        const fe = await toFlowEvent(store, run, e);
        if (fe) listener(fe);
      } catch (err) {
        onError(err);
      }
    });
  });
  return async () => {
    await unsubscribe();
    await chain;
  };
}
