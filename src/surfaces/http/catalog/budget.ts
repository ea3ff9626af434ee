/**
 * Character budgets for catalog answers. A list keeps as many items as fit (then `truncated: true`
 * and `next_cursor` resumes after the last kept item; `has_more` still means "more pages"). A detail
 * keeps its shape but cuts its largest fields to a preview, names them in `truncated_fields`, and
 * the whole record stays available with `?full=true`.
 */
import { clampString, jsonSize } from '../../../core/budget.ts';
import { NoemaError } from '../../../core/errors.ts';

const PREVIEW_CHARS = 2_000;

/**
 * The items of a list answer that fit `maxChars`, and the JSON text of `build(kept)` when measuring
 * made it (null: no budget, nothing measured), so the answer is not serialized twice.
 */
export function fitList<T>(
  items: T[],
  maxChars: number | null,
  build: (kept: T[]) => unknown,
): { kept: T[]; truncated: boolean; json: string | null } {
  if (maxChars === null) return { kept: items, truncated: false, json: null };
  const whole = JSON.stringify(build(items));
  if (whole.length <= maxChars) return { kept: items, truncated: false, json: whole };
  let lo = 0;
  let hi = items.length;
  // Invariant: lo items fit, hi items do not.
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (jsonSize(build(items.slice(0, mid))) <= maxChars) lo = mid;
    else hi = mid;
  }
  const kept = items.slice(0, lo);
  const json = JSON.stringify(build(kept));
  if (json.length > maxChars) throw tooSmall(maxChars, jsonSize(build([])));
  return { kept, truncated: true, json };
}

/**
 * The record, or its largest fields cut to previews so it fits `maxChars`; with the JSON text of
 * what is returned when measuring made it (null: no budget, nothing measured).
 */
export function fitRecord(
  record: Record<string, unknown>,
  maxChars: number | null,
): { fitted: Record<string, unknown>; json: string | null } {
  if (maxChars === null) return { fitted: record, json: null };
  const whole = JSON.stringify(record);
  if (whole.length <= maxChars) return { fitted: record, json: whole };
  const out: Record<string, unknown> = { ...record };
  const cut: string[] = [];
  const bySize = Object.keys(out)
    .filter((k) => k !== 'links')
    .sort((a, b) => jsonSize(out[b]) - jsonSize(out[a]));
  for (const key of bySize) {
    if (jsonSize({ ...out, truncated: true, truncated_fields: [...cut, key] }) <= maxChars) break;
    const value = out[key];
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    if (text === undefined || text.length <= PREVIEW_CHARS) break;
    out[key] = clampString(text, PREVIEW_CHARS).text;
    cut.push(key);
  }
  const fitted = { ...out, truncated: true, truncated_fields: cut };
  const json = JSON.stringify(fitted);
  if (json.length > maxChars) throw tooSmall(maxChars, json.length);
  return { fitted, json };
}

function tooSmall(maxChars: number, min: number): NoemaError {
  return new NoemaError('BUDGET_TOO_SMALL', `max_chars ${maxChars} cannot hold this answer`, {
    status: 400,
    details: { max_chars: maxChars, min_chars: min },
    hint: `use max_chars of at least ${min}, or full=true for the whole record`,
  });
}
