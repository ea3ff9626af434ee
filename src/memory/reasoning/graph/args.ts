/** Argument checks shared by the graph and think read tools: cursors, limits, budgets, filters. */
import { DEFAULT_MAX_CHARS, jsonSize } from '../../../core/budget.ts';
import { invalidInput, NoemaError } from '../../../core/errors.ts';
import { parseEntityId } from '../../../core/ids.ts';
import { labelError, MAX_STATUS, MAX_TYPE, normalizeTags } from './keys.ts';

export function cursorArg(v: unknown, field = 'cursor'): number | null {
  if (v === undefined || v === null) return null;
  if (!Number.isSafeInteger(v) || (v as number) < 1)
    throw invalidInput(`${field} must be a positive integer`, { field });
  return v as number;
}

export function intArg(v: unknown, field: string, def: number, min: number, max: number): number {
  if (v === undefined || v === null) return def;
  if (!Number.isSafeInteger(v) || (v as number) < min || (v as number) > max) {
    throw invalidInput(`${field} must be an integer between ${min} and ${max}`, { field });
  }
  return v as number;
}

export function maxCharsArg(v: unknown): number {
  return intArg(v, 'max_chars', DEFAULT_MAX_CHARS, 1, 1_000_000);
}

export function boolArg(v: unknown, field: string, def: boolean): boolean {
  if (v === undefined || v === null) return def;
  if (typeof v !== 'boolean') throw invalidInput(`${field} must be a boolean`, { field });
  return v;
}

/** An optional array of labels (types); undefined when absent. */
export function labelsArg(v: unknown, field: string, max = 50): string[] | undefined {
  if (v === undefined) return undefined;
  if (!Array.isArray(v) || v.length === 0 || v.length > max) {
    throw invalidInput(`${field} must be a non-empty array of at most ${max} strings`, { field });
  }
  v.forEach((s, i) => {
    const err = labelError(s, `${field}[${i}]`, MAX_TYPE);
    if (err) throw invalidInput(err, { field });
  });
  return [...new Set(v as string[])];
}

export function statusArg(v: unknown): string | undefined {
  if (v === undefined) return undefined;
  const err = labelError(v, 'status', MAX_STATUS);
  if (err) throw invalidInput(err, { field: 'status' });
  return v as string;
}

export function tagsArg(v: unknown, field: string): string[] | undefined {
  if (v === undefined) return undefined;
  const t = normalizeTags(v, field);
  if (!t.ok) throw invalidInput(t.error, { field });
  if (t.value.length === 0) throw invalidInput(`${field} must not be empty`, { field });
  return t.value;
}

/** Node ids to read (reserved prefixes allowed: reading the task projection is fine). */
export function idsArg(v: unknown, field = 'ids', max = 200): string[] | undefined {
  if (v === undefined) return undefined;
  if (!Array.isArray(v) || v.length === 0 || v.length > max) {
    throw invalidInput(`${field} must be a non-empty array of at most ${max} node ids`, { field });
  }
  for (const id of v) {
    const r = parseEntityId(id, field, 256);
    if (!r.ok) throw invalidInput(r.error, { field });
  }
  return [...new Set(v as string[])];
}

export function textArg(v: unknown): string | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || v.trim().length === 0 || v.length > 256) {
    throw invalidInput('text must be a non-empty string of at most 256 characters', { field: 'text' });
  }
  return v;
}

/** Escapes LIKE wildcards so user text matches literally (with `ESCAPE '\'`). */
export function likeEscape(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** For indivisible replies (one conflict, one template, one card): too big for the budget is BUDGET_TOO_SMALL. */
export function assertFits<T>(out: T, maxChars: number, what: string): T {
  const size = jsonSize(out);
  if (size > maxChars) {
    throw new NoemaError(
      'BUDGET_TOO_SMALL',
      `budget of ${maxChars} chars cannot hold ${what} (${size} chars)`,
      {
        details: { max_chars: maxChars, min_chars: size },
        hint: `Use max_chars of at least ${size}.`,
        status: 400,
      },
    );
  }
  return out;
}
