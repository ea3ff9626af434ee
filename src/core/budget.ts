// Output budgets for read surfaces: fit a list-shaped payload into a character budget by dropping
// the oldest items, and say so, rather than returning an unbounded or silently cut response.

import { ErrorCode, invalidInput, NoemaError } from './errors.ts';

/** Default budget, in characters of serialized JSON, for read surfaces. */
export const DEFAULT_MAX_CHARS = 20000;

/** Options for `fitToBudget`. */
export interface FitToBudgetOptions<T> {
  /** Builds the payload from the kept items; `truncated` is true when any item was dropped. */
  build: (items: T[], truncated: boolean) => unknown;
  /** All candidate items, in the caller's order. */
  items: T[];
  /** Budget for `JSON.stringify(payload).length`. */
  maxChars: number;
  /** Which end holds the oldest items, i.e. where to drop from. */
  dropFrom: 'start' | 'end';
}

export interface FitToBudgetResult<V = unknown> {
  value: V;
  truncated: boolean;
  kept: number;
  dropped: number;
}

/** Length of `JSON.stringify(value)`; 0 for values JSON.stringify skips (undefined, functions). */
export function jsonSize(value: unknown): number {
  return JSON.stringify(value)?.length ?? 0;
}

/**
 * Builds the payload with as many of the newest items as fit in `maxChars`.
 * Assumes the payload grows with the number of items, and binary-searches the kept count, so
 * `build` runs O(log n) times. Throws NoemaError BUDGET_TOO_SMALL when even zero items do not fit.
 */
export function fitToBudget<T>(opts: FitToBudgetOptions<T>): FitToBudgetResult {
  const { build, items, maxChars, dropFrom } = opts;
  if (!Number.isInteger(maxChars) || maxChars < 0) {
    throw invalidInput('maxChars must be a non-negative integer', { field: 'max_chars', value: maxChars });
  }
  const full = build(items, false);
  if (jsonSize(full) <= maxChars) return { value: full, truncated: false, kept: items.length, dropped: 0 };

  const n = items.length;
  const keep = (k: number): T[] => (dropFrom === 'start' ? items.slice(n - k) : items.slice(0, k));
  const attempt = (k: number): { value: unknown; size: number } => {
    const value = build(keep(k), true);
    return { value, size: jsonSize(value) };
  };

  let best = attempt(0);
  if (best.size > maxChars) {
    throw new NoemaError(
      ErrorCode.BUDGET_TOO_SMALL,
      `budget of ${maxChars} chars cannot hold even an empty result`,
      {
        details: { max_chars: maxChars, min_chars: best.size },
        hint: `Use max_chars of at least ${best.size}.`,
        status: 400,
      },
    );
  }
  // Invariant: `lo` kept items fit, `hi` kept items do not (n did not fit even untruncated).
  let lo = 0;
  let hi = n;
  while (hi - lo > 1) {
    const mid = lo + ((hi - lo) >> 1);
    const candidate = attempt(mid);
    if (candidate.size <= maxChars) {
      lo = mid;
      best = candidate;
    } else {
      hi = mid;
    }
  }
  return { value: best.value, truncated: true, kept: lo, dropped: n - lo };
}

/**
 * Cuts `s` to at most `maxChars` UTF-16 code units, never splitting a surrogate pair
 * (so the result may be one unit shorter than `maxChars`).
 */
export function clampString(s: string, maxChars: number): { text: string; truncated: boolean } {
  if (s.length <= maxChars) return { text: s, truncated: false };
  let end = Math.max(0, Math.floor(maxChars));
  const last = s.charCodeAt(end - 1);
  if (end > 0 && last >= 0xd800 && last <= 0xdbff) end -= 1;
  return { text: s.slice(0, end), truncated: true };
}
