/**
 * Stored version rows ↔ public node/edge states, and semantic equality of states (what merge,
 * diff and idempotent think cards compare). Tags are stored as `|a|b|` so filters are one LIKE.
 */
import { canonicalJson } from '../../../core/canonical-json.ts';
import type { EdgeContent, GraphEdge, GraphNode, NodeContent } from './types.ts';

export type NodeRow = {
  node_id: string;
  branch: string;
  seq: number;
  ts_ms: number;
  type: string;
  title: string | null;
  text: string | null;
  status: string | null;
  tags: string;
  meta: string | null;
  deleted: number;
  origin: string | null;
};

export type EdgeRow = {
  from_id: string;
  rel: string;
  to_id: string;
  branch: string;
  seq: number;
  ts_ms: number;
  meta: string | null;
  deleted: number;
  origin: string | null;
};

export const NODE_COLUMNS =
  'node_id, branch, seq, ts_ms, type, title, text, status, tags, meta, deleted, origin';
export const EDGE_COLUMNS = 'from_id, rel, to_id, branch, seq, ts_ms, meta, deleted, origin';

export function encodeTags(tags: readonly string[]): string {
  return tags.length === 0 ? '' : `|${tags.join('|')}|`;
}

function decodeTags(s: string | null): string[] {
  return s ? s.slice(1, -1).split('|') : [];
}

/** The lowercased haystack `text` filters match against. */
export function searchText(c: NodeContent): string {
  return c.deleted ? '' : [c.id, c.title ?? '', c.text ?? ''].join('\n').toLowerCase();
}

export function toNode(r: NodeRow): GraphNode {
  const n: GraphNode = {
    id: r.node_id,
    type: r.type,
    tags: decodeTags(r.tags),
    deleted: Number(r.deleted) === 1,
    last_seq: Number(r.seq),
    last_ts_ms: Number(r.ts_ms),
  };
  if (r.title !== null && r.title !== undefined) n.title = r.title;
  if (r.text !== null && r.text !== undefined) n.text = r.text;
  if (r.status !== null && r.status !== undefined) n.status = r.status;
  if (r.meta !== null && r.meta !== undefined) n.meta = JSON.parse(r.meta) as Record<string, unknown>;
  return n;
}

export function toEdge(r: EdgeRow): GraphEdge {
  const e: GraphEdge = {
    from: r.from_id,
    rel: r.rel,
    to: r.to_id,
    deleted: Number(r.deleted) === 1,
    last_seq: Number(r.seq),
    last_ts_ms: Number(r.ts_ms),
  };
  if (r.meta !== null && r.meta !== undefined) e.meta = JSON.parse(r.meta) as Record<string, unknown>;
  return e;
}

/** The content part of a state (drops version metadata). */
export function nodeContent(n: GraphNode): NodeContent {
  const { last_seq: _s, last_ts_ms: _t, ...content } = n;
  return content;
}

export function edgeContent(e: GraphEdge): EdgeContent {
  const { last_seq: _s, last_ts_ms: _t, ...content } = e;
  return content;
}

/**
 * True when two states mean the same thing. Absent and tombstone are equal (neither exists);
 * otherwise every content field must match (version metadata is ignored).
 */
export function sameState(
  a: NodeContent | EdgeContent | GraphNode | GraphEdge | null | undefined,
  b: NodeContent | EdgeContent | GraphNode | GraphEdge | null | undefined,
): boolean {
  const goneA = !a || a.deleted;
  const goneB = !b || b.deleted;
  if (goneA || goneB) return goneA && goneB;
  return canonicalJson(stripVersion(a)) === canonicalJson(stripVersion(b));
}

function stripVersion(s: object): object {
  const { last_seq: _s, last_ts_ms: _t, ...rest } = s as Record<string, unknown>;
  return rest;
}
