/**
 * The `flow` MCP catalog (seed 003 "MCP Contract Alignment"): llmctl_get_memory / _plan /
 * _milestone (with include_artifacts), llmctl_get_decision_artifact, llmctl_get_node_artifact
 * (generic list/detail), and the memory tools memory nodes are bound to (`llmctl-mcp`). Payloads are
 * the REST items (the same read models in src/runtimes/flow/views.ts).
 */
import {
  decisionArtifact,
  decisionArtifacts,
  getNodeArtifact,
  listNodeArtifacts,
  llmctlMemoryAdd,
  llmctlMemoryRetrieve,
  MAX_ARTIFACT_PAGE,
  memoryView,
  milestoneView,
  planView,
} from '../../../../runtimes/flow/index.ts';
import type { McpToolDef } from '../../tool.ts';
import { objectSchema } from '../schema-parts.ts';

type In = Record<string, unknown>;
const as = <T>(input: In): T => input as T;

const positiveId = (what: string) => ({
  type: 'integer',
  minimum: 1,
  description: `The ${what} id (a positive integer).`,
});
const includeArtifacts = {
  type: 'boolean',
  description: 'Also return the node artifacts that reference it (newest first, paged by limit/offset).',
};
const limit = {
  type: 'integer',
  minimum: 1,
  maximum: MAX_ARTIFACT_PAGE,
  description: `Page size (default 50, at most ${MAX_ARTIFACT_PAGE}).`,
};
const offset = { type: 'integer', minimum: 0, description: 'Items to skip (default 0).' };
const flowchartId = { type: 'string', minLength: 1, maxLength: 64, description: 'The flowchart id.' };
const nodeId = { type: 'string', minLength: 1, maxLength: 64, description: 'The flowchart node id.' };
const runId = {
  type: 'string',
  minLength: 1,
  maxLength: 64,
  description: 'Only artifacts of this flowchart run.',
};

export function flowTools(): McpToolDef[] {
  return [
    {
      name: 'llmctl_get_memory',
      description:
        'Reads one long-term memory (as flowchart memory nodes store them); include_artifacts adds the memory-node artifacts that reference it.',
      inputSchema: objectSchema(
        { memory_id: positiveId('memory'), include_artifacts: includeArtifacts, limit, offset },
        ['memory_id'],
      ),
      handler: (input, { store }) => memoryView(store, input.memory_id as number, as(input)),
    },
    {
      name: 'llmctl_get_plan',
      description:
        'Reads one plan written by plan nodes (stages and tasks); include_artifacts adds its plan-node artifacts.',
      inputSchema: objectSchema(
        { plan_id: positiveId('plan'), include_artifacts: includeArtifacts, limit, offset },
        ['plan_id'],
      ),
      handler: (input, { store }) => planView(store, input.plan_id as number, as(input)),
    },
    {
      name: 'llmctl_get_milestone',
      description:
        'Reads one milestone written by milestone nodes; include_artifacts adds its milestone-node artifacts.',
      inputSchema: objectSchema(
        { milestone_id: positiveId('milestone'), include_artifacts: includeArtifacts, limit, offset },
        ['milestone_id'],
      ),
      handler: (input, { store }) => milestoneView(store, input.milestone_id as number, as(input)),
    },
    {
      name: 'llmctl_get_decision_artifact',
      description:
        'Decision artifacts of one decision node: with artifact_id, that artifact ({ item }); without, a page ({ items, count, limit, offset }), optionally of one run. Each has matched_connector_ids, evaluations, no_match, resolved_route_key, resolved_route_path.',
      inputSchema: objectSchema(
        {
          flowchart_id: flowchartId,
          flowchart_node_id: nodeId,
          artifact_id: positiveId('artifact'),
          flowchart_run_id: runId,
          limit,
          offset,
        },
        ['flowchart_id', 'flowchart_node_id'],
      ),
      handler: async (input, { store }) =>
        input.artifact_id !== undefined
          ? decisionArtifact(store, as(input))
          : decisionArtifacts(store, as(input)),
    },
    {
      name: 'llmctl_get_node_artifact',
      description:
        'Any node artifact: with artifact_id, that artifact ({ item }); without, a page of artifacts filtered by flowchart, run, node, node type, artifact type, plan, memory or milestone (newest first).',
      inputSchema: objectSchema(
        {
          artifact_id: positiveId('artifact'),
          flowchart_id: flowchartId,
          flowchart_run_id: runId,
          flowchart_node_id: nodeId,
          flowchart_node_type: {
            type: 'string',
            enum: ['memory', 'plan', 'milestone', 'decision'],
            description: 'Only artifacts of this node type.',
          },
          artifact_type: {
            type: 'string',
            minLength: 1,
            maxLength: 64,
            description: 'Only artifacts of this type.',
          },
          plan_id: positiveId('plan'),
          memory_id: positiveId('memory'),
          milestone_id: positiveId('milestone'),
          limit,
          offset,
        },
        [],
      ),
      handler: async (input, { store }) => {
        const { artifact_id, limit: l, offset: o, ...filter } = input as Record<string, never>;
        if (artifact_id !== undefined) return { item: await getNodeArtifact(store, artifact_id) };
        return listNodeArtifacts(store, filter, {
          ...(l !== undefined ? { limit: l } : {}),
          ...(o !== undefined ? { offset: o } : {}),
        }) as never;
      },
    },
    {
      name: 'llmctl_memory_add',
      description:
        "Stores a memory in a flowchart's long-term memory (what memory nodes do through their llmctl-mcp binding). store_mode replace rewrites the newest memory of the flowchart.",
      inputSchema: objectSchema(
        {
          flowchart_id: flowchartId,
          text: { type: 'string', minLength: 1, maxLength: 32_768, description: 'What to remember.' },
          store_mode: {
            type: 'string',
            enum: ['append', 'replace'],
            description: 'append (default) or replace.',
          },
        },
        ['flowchart_id', 'text'],
      ),
      handler: (input, { store }) => llmctlMemoryAdd(store, as(input)) as never,
    },
    {
      name: 'llmctl_memory_retrieve',
      description:
        "Retrieves memories of a flowchart's long-term memory: by query_text (full-text relevance and recency), by memory_id, or the newest; limit is clamped to 1..50.",
      inputSchema: objectSchema(
        {
          flowchart_id: flowchartId,
          query_text: { type: 'string', maxLength: 2000, description: 'Words to search for.' },
          memory_id: positiveId('memory'),
          limit: { type: 'integer', description: 'Most memories to return (clamped to 1..50; default 10).' },
        },
        ['flowchart_id'],
      ),
      handler: (input, { store }) => llmctlMemoryRetrieve(store, as(input)) as never,
    },
  ];
}
