/**
 * The graph's type discipline: node ids, types, rels, statuses and tags are validated (no control
 * characters, bounded length, `|` reserved in type/rel/tags, `task:`/`step:` id prefixes reserved
 * for the task projection) and tags are normalized (lowercased, deduplicated, sorted).
 */
import { hasControlChars, parseEntityId } from '../../../core/ids.ts';

export const MAX_NODE_ID = 256;
export const MAX_TYPE = 64;
export const MAX_STATUS = 64;
export const MAX_TAG = 64;
export const MAX_TAGS = 32;
export const MAX_TITLE = 1_000;
export const MAX_TEXT = 20_000;
export const MAX_META_CHARS = 20_000;

/** Node id prefixes owned by the task projection; agents may not write them. */
export const RESERVED_ID_PREFIXES = ['task:', 'step:'] as const;

/** Returns an error message, or undefined when `id` is a valid writable node id. */
export function nodeIdError(id: unknown, field: string): string | undefined {
  const r = parseEntityId(id, field, MAX_NODE_ID);
  if (!r.ok) return r.error;
  for (const prefix of RESERVED_ID_PREFIXES) {
    if (r.value.startsWith(prefix)) return `${field} must not start with the reserved prefix "${prefix}"`;
  }
  return undefined;
}

/** Shared rule for type, rel and status: a short label without control characters or `|`. */
export function labelError(value: unknown, field: string, max: number): string | undefined {
  if (typeof value !== 'string') return `${field} must be a string`;
  if (value.trim().length === 0) return `${field} must not be empty`;
  if (value.length > max) return `${field} must be at most ${max} characters (got ${value.length})`;
  if (hasControlChars(value)) return `${field} must not contain control characters`;
  if (!value.isWellFormed()) return `${field} must be well-formed Unicode`;
  if (value.includes('|')) return `${field} must not contain "|" (reserved)`;
  return undefined;
}

/** Free text (title, text): bounded, well-formed; newlines and tabs are allowed. */
export function textError(value: unknown, field: string, max: number): string | undefined {
  if (typeof value !== 'string') return `${field} must be a string`;
  if (value.length > max) return `${field} must be at most ${max} characters (got ${value.length})`;
  if (!value.isWellFormed()) return `${field} must be well-formed Unicode`;
  if (hasControlChars(value.replace(/[\n\r\t]/g, ''))) return `${field} must not contain control characters`;
  return undefined;
}

/** Plain JSON object, bounded in serialized size. */
export function metaError(value: unknown, field: string): string | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return `${field} must be an object`;
  let size: number;
  try {
    size = JSON.stringify(value).length;
  } catch {
    return `${field} must be plain JSON`;
  }
  if (size > MAX_META_CHARS) return `${field} must serialize to at most ${MAX_META_CHARS} characters`;
  return undefined;
}

/** Normalizes tags (lowercase, trimmed, deduplicated, sorted) or returns the first error. */
export function normalizeTags(
  tags: unknown,
  field: string,
): { ok: true; value: string[] } | { ok: false; error: string } {
  if (!Array.isArray(tags)) return { ok: false, error: `${field} must be an array of strings` };
  if (tags.length > MAX_TAGS) return { ok: false, error: `${field} must have at most ${MAX_TAGS} tags` };
  const out = new Set<string>();
  for (let i = 0; i < tags.length; i++) {
    const raw = tags[i];
    const error = labelError(raw, `${field}[${i}]`, MAX_TAG);
    if (error) return { ok: false, error };
    out.add((raw as string).trim().toLowerCase());
  }
  return { ok: true, value: [...out].sort() };
}

/** Canonical string form of an edge key, used for ordering and conflict ids. */
export function edgeKeyString(k: { from: string; rel: string; to: string }): string {
  return `${k.from}|${k.rel}|${k.to}`;
}
