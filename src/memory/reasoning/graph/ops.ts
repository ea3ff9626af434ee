/**
 * Parses and validates a batch of graph_apply ops into normalized version contents, collecting
 * every problem first so one bad op rejects the whole batch before anything is written.
 */
import { invalidInput } from '../../../core/errors.ts';
import {
  labelError,
  MAX_STATUS,
  MAX_TEXT,
  MAX_TITLE,
  MAX_TYPE,
  metaError,
  nodeIdError,
  normalizeTags,
  textError,
} from './keys.ts';
import type { EdgeContent, NodeContent, NormalizedOp } from './types.ts';

export const MAX_OPS = 1_000;

const FIELDS: Record<string, readonly string[]> = {
  node_upsert: ['op', 'id', 'type', 'title', 'text', 'status', 'tags', 'meta'],
  node_delete: ['op', 'id'],
  edge_upsert: ['op', 'from', 'rel', 'to', 'meta'],
  edge_delete: ['op', 'from', 'rel', 'to'],
};

export interface OpIssue {
  path: string;
  message: string;
}

/** Validates a node upsert's fields; pushes issues and returns the content when valid. */
export function parseNodeUpsert(
  o: Record<string, unknown>,
  at: string,
  issues: OpIssue[],
): NodeContent | undefined {
  const before = issues.length;
  const check = (field: string, err: string | undefined) => {
    if (err) issues.push({ path: `${at}.${field}`, message: err });
  };
  check('id', nodeIdError(o.id, 'id'));
  check('type', labelError(o.type, 'type', MAX_TYPE));
  if (o.title !== undefined) check('title', textError(o.title, 'title', MAX_TITLE));
  if (o.text !== undefined) check('text', textError(o.text, 'text', MAX_TEXT));
  if (o.status !== undefined) check('status', labelError(o.status, 'status', MAX_STATUS));
  if (o.meta !== undefined) check('meta', metaError(o.meta, 'meta'));
  let tags: string[] = [];
  if (o.tags !== undefined) {
    const t = normalizeTags(o.tags, 'tags');
    if (t.ok) tags = t.value;
    else check('tags', t.error);
  }
  if (issues.length > before) return undefined;
  const c: NodeContent = { id: o.id as string, type: o.type as string, tags, deleted: false };
  if (o.title !== undefined) c.title = o.title as string;
  if (o.text !== undefined) c.text = o.text as string;
  if (o.status !== undefined) c.status = o.status as string;
  if (o.meta !== undefined) c.meta = o.meta as Record<string, unknown>;
  return c;
}

function parseEdgeKey(o: Record<string, unknown>, at: string, issues: OpIssue[]): boolean {
  const before = issues.length;
  for (const f of ['from', 'to'] as const) {
    const err = nodeIdError(o[f], f);
    if (err) issues.push({ path: `${at}.${f}`, message: err });
  }
  const relErr = labelError(o.rel, 'rel', MAX_TYPE);
  if (relErr) issues.push({ path: `${at}.rel`, message: relErr });
  return issues.length === before;
}

function parseOne(raw: unknown, at: string, issues: OpIssue[]): NormalizedOp | undefined {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    issues.push({ path: at, message: 'op must be an object' });
    return undefined;
  }
  const o = raw as Record<string, unknown>;
  const allowed = typeof o.op === 'string' ? FIELDS[o.op] : undefined;
  if (!allowed) {
    issues.push({
      path: `${at}.op`,
      message: 'op must be node_upsert, node_delete, edge_upsert or edge_delete',
    });
    return undefined;
  }
  const unknown = Object.keys(o).filter((k) => !allowed.includes(k));
  if (unknown.length > 0) {
    issues.push({ path: at, message: `unknown field(s) for ${o.op}: ${unknown.join(', ')}` });
    return undefined;
  }
  switch (o.op) {
    case 'node_upsert': {
      const content = parseNodeUpsert(o, at, issues);
      return content ? { kind: 'node', content } : undefined;
    }
    case 'node_delete': {
      const err = nodeIdError(o.id, 'id');
      if (err) {
        issues.push({ path: `${at}.id`, message: err });
        return undefined;
      }
      // A tombstone keeps only identity; the type column needs a value, and '' never passes validation.
      return { kind: 'node', content: { id: o.id as string, type: '', tags: [], deleted: true } };
    }
    default: {
      if (!parseEdgeKey(o, at, issues)) return undefined;
      const deleted = o.op === 'edge_delete';
      if (!deleted && o.meta !== undefined) {
        const err = metaError(o.meta, 'meta');
        if (err) {
          issues.push({ path: `${at}.meta`, message: err });
          return undefined;
        }
      }
      const content: EdgeContent = {
        from: o.from as string,
        rel: o.rel as string,
        to: o.to as string,
        deleted,
      };
      if (!deleted && o.meta !== undefined) content.meta = o.meta as Record<string, unknown>;
      return { kind: 'edge', content };
    }
  }
}

/** Validates every op; throws INVALID_INPUT listing all issues (details.errors) if any op is bad. */
export function parseGraphOps(ops: unknown): NormalizedOp[] {
  if (!Array.isArray(ops)) throw invalidInput('ops must be an array', { field: 'ops' });
  if (ops.length === 0) throw invalidInput('ops must not be empty', { field: 'ops' });
  if (ops.length > MAX_OPS) {
    throw invalidInput(
      `at most ${MAX_OPS} ops per call (got ${ops.length})`,
      { field: 'ops' },
      'split the batch',
    );
  }
  const issues: OpIssue[] = [];
  const out: NormalizedOp[] = [];
  ops.forEach((raw, i) => {
    const op = parseOne(raw, `ops[${i}]`, issues);
    if (op) out.push(op);
  });
  if (issues.length > 0) {
    const first = issues[0]!;
    throw invalidInput(
      `${first.path}: ${first.message}${issues.length > 1 ? ` (and ${issues.length - 1} more)` : ''}`,
      { field: 'ops', errors: issues.slice(0, 50) },
      'fix the listed ops; nothing was applied',
    );
  }
  return out;
}
