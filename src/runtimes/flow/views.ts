/**
 * The read models REST routes and MCP tools share (so their payloads match): memories, plans and
 * milestones with their artifact history, decision artifacts of a node, and generic artifacts.
 */
import { NoemaError } from '../../core/errors.ts';
import { getMemory, type MemoryRecord } from '../../memory/index.ts';
import type { Queryable } from '../../store/store.ts';
import {
  type ArtifactFilter,
  type ArtifactPage,
  getNodeArtifact,
  listNodeArtifacts,
  type NodeArtifact,
} from './artifacts/read.ts';
import { getMilestone, type MilestoneRecord } from './milestones.ts';
import { getPlan, type PlanRecord } from './plan/store.ts';

export interface PageInput {
  limit?: number;
  offset?: number;
}

export interface WithArtifacts {
  include_artifacts?: boolean;
  limit?: number;
  offset?: number;
}

export async function memoryView(q: Queryable, memory_id: number, o: WithArtifacts = {}) {
  const memory = await getMemory(q, memory_id);
  // Only flowchart memories: user and agent memories are not this API's to show.
  if (memory?.scope_kind !== 'flowchart')
    throw new NoemaError('UNKNOWN_MEMORY', `no memory ${memory_id}`, { status: 404, details: { memory_id } });
  return withArtifacts<{ memory_id: number; item: MemoryRecord }>(
    { memory_id, item: memory },
    q,
    { memory_id },
    o,
  );
}

export async function planView(q: Queryable, plan_id: number, o: WithArtifacts = {}) {
  const plan = await getPlan(q, plan_id);
  return withArtifacts<{ plan_id: number; item: PlanRecord }>({ plan_id, item: plan }, q, { plan_id }, o);
}

export async function milestoneView(q: Queryable, milestone_id: number, o: WithArtifacts = {}) {
  const m = await getMilestone(q, milestone_id);
  return withArtifacts<{ milestone_id: number; item: MilestoneRecord }>(
    { milestone_id, item: m },
    q,
    { milestone_id },
    o,
  );
}

async function withArtifacts<T extends object>(
  base: T,
  q: Queryable,
  filter: ArtifactFilter,
  o: WithArtifacts,
): Promise<T & { artifacts?: ArtifactPage }> {
  if (!o.include_artifacts) return base;
  return { ...base, artifacts: await listNodeArtifacts(q, filter, o) };
}

/** Artifacts of a plan / memory / milestone (REST `GET /plans/{plan_id}/artifacts` …). */
export async function artifactsOf(
  q: Queryable,
  scope: { plan_id: number } | { memory_id: number } | { milestone_id: number },
  filter: Omit<ArtifactFilter, 'plan_id' | 'memory_id' | 'milestone_id'> & PageInput = {},
) {
  const { limit, offset, ...rest } = filter;
  const page = await listNodeArtifacts(
    q,
    { ...rest, ...scope },
    { ...(limit !== undefined ? { limit } : {}), ...(offset !== undefined ? { offset } : {}) },
  );
  return { ...scope, ...page };
}

export async function artifactOf(
  q: Queryable,
  scope: { plan_id: number } | { memory_id: number } | { milestone_id: number },
  artifact_id: number,
): Promise<{ item: NodeArtifact }> {
  return { ...scope, item: await getNodeArtifact(q, artifact_id, scope) };
}

/** Decision artifacts of one flowchart node (list), optionally of one run. */
export async function decisionArtifacts(
  q: Queryable,
  input: { flowchart_id: string; flowchart_node_id: string; flowchart_run_id?: string } & PageInput,
) {
  const { limit, offset, ...scope } = input;
  const page = await listNodeArtifacts(
    q,
    { ...scope, artifact_type: 'decision' },
    { ...(limit !== undefined ? { limit } : {}), ...(offset !== undefined ? { offset } : {}) },
  );
  return { flowchart_id: input.flowchart_id, flowchart_node_id: input.flowchart_node_id, ...page };
}

export async function decisionArtifact(
  q: Queryable,
  input: { flowchart_id: string; flowchart_node_id: string; artifact_id: number },
) {
  const item = await getNodeArtifact(q, input.artifact_id, {
    flowchart_id: input.flowchart_id,
    flowchart_node_id: input.flowchart_node_id,
    artifact_type: 'decision',
  });
  return { flowchart_id: input.flowchart_id, flowchart_node_id: input.flowchart_node_id, item };
}
