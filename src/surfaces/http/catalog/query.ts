/**
 * Query parameters of catalog routes, parsed once and validated: filters by their declared type,
 * `limit`, `cursor`, `max_chars`, `full`, `format`. Anything else, or text PostgreSQL would refuse
 * (NUL and other control characters), is a 400 before a loader runs.
 */
import { invalidInput, NoemaError } from '../../../core/errors.ts';
import { hasControlChars } from '../../../core/ids.ts';
import type { FilterSpec, FilterValues, ResourceKind } from './kind.ts';

export const MAX_PAGE = 200;
export const DEFAULT_PAGE = 50;
/** Default character budget of a list answer and of a detail answer (`max_chars` overrides). */
export const DEFAULT_MAX_CHARS = 200_000;
export const MAX_MAX_CHARS = 10_000_000;
const MAX_TEXT = 256;

const RESERVED = new Set(['format', 'limit', 'cursor', 'max_chars', 'full']);

export function checkText(name: string, value: string, max = MAX_TEXT): string {
  if (value.length === 0 || value.length > max || hasControlChars(value)) {
    throw invalidInput(`${name} must be 1-${max} characters without control characters`, { parameter: name });
  }
  return value;
}

/** A path key (id or hash) that cannot name a record is simply not found. */
export function checkKey(kind: ResourceKind, key: string): string {
  if (key.length === 0 || key.length > MAX_TEXT || hasControlChars(key)) {
    throw new NoemaError('NOT_FOUND', `no ${kind.kind} record "${key.slice(0, 64)}"`, {
      status: 404,
      details: { kind: kind.kind },
    });
  }
  return key;
}

function integer(name: string, raw: string, min: number, max: number): number {
  const n = Number(raw);
  if (!/^\d{1,9}$/.test(raw) || n < min || n > max)
    throw invalidInput(`${name} must be an integer from ${min} to ${max}`, { [name]: raw.slice(0, 64) });
  return n;
}

export interface Budget {
  /** null with `full=true`: the whole record on request. */
  maxChars: number | null;
}

export function parseBudget(q: URLSearchParams): Budget {
  const full = q.get('full');
  if (full !== null && full !== 'true' && full !== 'false')
    throw invalidInput('full must be true or false', { full: full.slice(0, 64) });
  if (full === 'true') return { maxChars: null };
  const raw = q.get('max_chars');
  return { maxChars: raw === null ? DEFAULT_MAX_CHARS : integer('max_chars', raw, 1, MAX_MAX_CHARS) };
}

function parseFilter(name: string, spec: FilterSpec, raw: string): string | number {
  switch (spec.type) {
    case 'string':
      return checkText(name, raw, spec.maxLength ?? MAX_TEXT);
    case 'enum':
      if (!spec.values.includes(raw))
        throw invalidInput(`${name} must be one of ${spec.values.join(', ')}`, { [name]: raw.slice(0, 64) });
      return raw;
    case 'integer':
      return integer(name, raw, spec.minimum ?? 0, spec.maximum ?? 999_999_999);
  }
}

export interface ParsedListQuery {
  filters: FilterValues;
  limit: number;
  cursor?: string;
  budget: Budget;
}

/** Parses a list query; `fixed` filters come from the path (scopes) and cannot be overridden. */
export function parseListQuery(
  kind: ResourceKind,
  q: URLSearchParams,
  fixed: FilterValues = {},
): ParsedListQuery {
  const byName = new Map<string, [string, FilterSpec]>();
  for (const [name, spec] of Object.entries(kind.filters ?? {})) {
    byName.set(name, [name, spec]);
    for (const alias of spec.aliases ?? []) byName.set(alias, [name, spec]);
  }
  const filters: FilterValues = {};
  for (const [param, raw] of q) {
    if (RESERVED.has(param)) continue;
    const found = byName.get(param);
    if (!found) {
      throw invalidInput(`unknown parameter "${param.slice(0, 64)}" for ${kind.kind}`, {
        known: [...byName.keys(), ...RESERVED],
      });
    }
    const [name, spec] = found;
    if (q.getAll(param).length > 1)
      throw invalidInput(`${param} is given more than once`, { parameter: param });
    filters[name] = parseFilter(param, spec, raw);
  }
  Object.assign(filters, fixed);
  const limitRaw = q.get('limit');
  const cursor = q.get('cursor');
  const parsed: ParsedListQuery = {
    filters,
    limit: limitRaw === null ? DEFAULT_PAGE : integer('limit', limitRaw, 1, MAX_PAGE),
    budget: parseBudget(q),
  };
  if (cursor !== null) parsed.cursor = checkText('cursor', cursor);
  return parsed;
}
