/**
 * The flowchart authoring format (seed 003): node types, connector modes, the inspector contract of
 * each specialized node (as normalized configs), and the graph snapshot the REST/MCP/CLI surfaces
 * exchange.
 */
import type { Json } from '../../engine/index.ts';

export const NODE_TYPES = ['start', 'llm', 'memory', 'plan', 'milestone', 'decision', 'end'] as const;
export type FlowNodeType = (typeof NODE_TYPES)[number];

export const EDGE_MODES = ['solid', 'dotted', 'dashed'] as const;
export type EdgeMode = (typeof EDGE_MODES)[number];

export const NODE_MODES = ['llm_guided', 'deterministic'] as const;
export type NodeMode = (typeof NODE_MODES)[number];

export const RETENTION_MODES = ['forever', 'ttl', 'max_count', 'ttl_max_count'] as const;
export type RetentionMode = (typeof RETENTION_MODES)[number];

export const MEMORY_ACTIONS = ['add', 'retrieve'] as const;
export const PLAN_STORE_MODES = ['append', 'replace', 'update'] as const;
export type PlanStoreMode = (typeof PLAN_STORE_MODES)[number];
export const MILESTONE_ACTIONS = ['create_or_update', 'mark_complete'] as const;

/** The one MCP server memory nodes are bound to; the binding is system-managed. */
export const SYSTEM_MCP_KEY = 'llmctl-mcp';

export const DEFAULT_RETRY_COUNT = 1;
export const MAX_RETRY_COUNT = 5;
export const DEFAULT_RETENTION_TTL_SECONDS = 3600;
export const DEFAULT_RETENTION_MAX_COUNT = 25;

/** A deterministic decision condition: `path` is a JSON pointer into the node's incoming context. */
export interface DeterministicCondition {
  path: string;
  equals?: Json;
  in?: Json[];
  exists?: boolean;
}

export interface GraphNode {
  id: string;
  node_type: FlowNodeType;
  title: string;
  /** Normalized config (see graph/normalize.ts); specialized nodes follow the seed's inspector contract. */
  config: Record<string, Json>;
  position: { x: number; y: number } | null;
}

export interface GraphEdge {
  id: string;
  source_node_id: string;
  target_node_id: string;
  edge_mode: EdgeMode;
  condition_text: string | null;
  route_key: string | null;
  /** Optional deterministic condition for a decision node's solid outgoing connector. */
  condition: DeterministicCondition | null;
}

export interface GraphSnapshot {
  nodes: GraphNode[];
  edges: GraphEdge[];
}

/** A semantic problem: the snapshot is saved, but `validation.valid` is false. */
export interface ValidationIssue {
  code: string;
  message: string;
  node_id?: string;
  edge_id?: string;
}

export interface GraphValidation {
  valid: boolean;
  errors: ValidationIssue[];
}

export interface Flowchart {
  flowchart_id: string;
  name: string;
  description: string;
  graph_revision: number;
  created_at: string;
  updated_at: string;
}
