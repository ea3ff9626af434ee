/** Shared input normalization for read/merge operations: limits, cursors, budgets. */
import { DEFAULT_MAX_CHARS } from '../../../core/budget.ts';
import { invalidInput } from '../../../core/errors.ts';

export const MAX_MAX_CHARS = 1_000_000;

export function normLimit(v: unknown, def: number, max: number, field = 'limit'): number {
  if (v === undefined || v === null) return def;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > max) {
    throw invalidInput(`${field} must be an integer from 1 to ${max}`, { field, value: v });
  }
  return v;
}

/** A tail cursor: entries with `seq < cursor` are returned; null starts at the newest entry. */
export function normCursor(v: unknown, field = 'cursor'): number | null {
  if (v === undefined || v === null) return null;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 1) {
    throw invalidInput(`${field} must be a positive integer (a next_cursor from a previous page)`, {
      field,
      value: v,
    });
  }
  return v;
}

export function normMaxChars(v: unknown): number {
  if (v === undefined || v === null) return DEFAULT_MAX_CHARS;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > MAX_MAX_CHARS) {
    throw invalidInput(`max_chars must be an integer from 1 to ${MAX_MAX_CHARS}`, {
      field: 'max_chars',
      value: v,
    });
  }
  return v;
}
