/**
 * The graph's public shapes: node and edge states (one version each), the four apply ops, and
 * the (workspace, doc) scope a graph document lives in. Shared by every graph module.
 */

/** A node state as tools return it: the effective (latest visible) version of its id. */
export interface GraphNode {
  id: string;
  type: string;
  title?: string;
  text?: string;
  status?: string;
  tags: string[];
  meta?: Record<string, unknown>;
  deleted: boolean;
  last_seq: number;
  last_ts_ms: number;
}

/** An edge state; identity is (from, rel, to). */
export interface GraphEdge {
  from: string;
  rel: string;
  to: string;
  meta?: Record<string, unknown>;
  deleted: boolean;
  last_seq: number;
  last_ts_ms: number;
}

export interface EdgeKey {
  from: string;
  rel: string;
  to: string;
}

/** The content of a node version, without version metadata (what an upsert writes). */
export interface NodeContent {
  id: string;
  type: string;
  title?: string;
  text?: string;
  status?: string;
  tags: string[];
  meta?: Record<string, unknown>;
  deleted: boolean;
}

export interface EdgeContent {
  from: string;
  rel: string;
  to: string;
  meta?: Record<string, unknown>;
  deleted: boolean;
}

export type NodeUpsertOp = {
  op: 'node_upsert';
  id: string;
  type: string;
  title?: string;
  text?: string;
  status?: string;
  tags?: string[];
  meta?: Record<string, unknown>;
};
export type NodeDeleteOp = { op: 'node_delete'; id: string };
export type EdgeUpsertOp = {
  op: 'edge_upsert';
  from: string;
  rel: string;
  to: string;
  meta?: Record<string, unknown>;
};
export type EdgeDeleteOp = { op: 'edge_delete'; from: string; rel: string; to: string };
export type GraphOp = NodeUpsertOp | NodeDeleteOp | EdgeUpsertOp | EdgeDeleteOp;

/** A validated op, normalized to the version content it will write. */
export type NormalizedOp = { kind: 'node'; content: NodeContent } | { kind: 'edge'; content: EdgeContent };

/** Where one graph document lives. Branch is chosen per call (its effective sources). */
export interface GraphScope {
  workspace: string;
  doc: string;
}

export interface Pagination {
  cursor: number | null;
  next_cursor?: number;
  has_more: boolean;
  limit: number;
  count: number;
}

/**
 * Provenance of a version (stored, not returned): `merge:<from_branch>:<from_seq>` when
 * graph_merge or conflict_resolve(use_from) copied it; it lets a later merge from the same
 * branch treat a key `into` only received from `from` as unchanged on `into`.
 */
export type VersionOrigin = string | null;
