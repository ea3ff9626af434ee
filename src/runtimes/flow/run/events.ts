/**
 * The seed's three events, built from durable rows: `flowchart.node.updated`,
 * `flowchart.run.updated` and `flowchart:node_artifact:persisted`. Nodes emit the first and third as
 * engine `node.updated` data; `subscribeFlowRun` maps a run's engine events to all three.
 */
import type { Engine, EngineEvent, Json, RunStatus } from '../../../engine/index.ts';
import type { NodeArtifact } from '../artifacts/read.ts';
import type { NodeRun } from './node-runs.ts';

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

const isFlowEvent = (d: unknown): d is FlowNodeUpdated | FlowArtifactPersisted =>
  typeof d === 'object' &&
  d !== null &&
  ((d as { event?: unknown }).event === NODE_UPDATED ||
    (d as { event?: unknown }).event === ARTIFACT_PERSISTED);

/**
 * Subscribes to one flowchart run's events (across processes on PostgreSQL, as the engine's events
 * are). Engine `node.updated` data carrying a flow event is passed on; `run.updated` becomes
 * `flowchart.run.updated`. Returns unsubscribe.
 */
export async function subscribeFlowRun(
  engine: Engine,
  run: { flowchart_id: string; flowchart_run_id: string; created_at: string },
  listener: (e: FlowEvent) => void,
): Promise<() => Promise<void>> {
  return engine.subscribe(run.flowchart_run_id, (e: EngineEvent) => {
    if (e.type === 'node.updated' && isFlowEvent(e.data)) listener(e.data as unknown as FlowEvent);
    else if (e.type === 'run.updated')
      listener({
        event: RUN_UPDATED,
        flowchart_id: run.flowchart_id,
        flowchart_run_id: run.flowchart_run_id,
        status: e.status,
        created_at: run.created_at,
        updated_at: new Date(e.at).toISOString(),
        ...(e.error ? { error: e.error as unknown as Json } : {}),
      });
  });
}
