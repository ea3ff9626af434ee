/**
 * Input hygiene for every tool call, before any handler runs: arguments nest at most
 * `MAX_ARGUMENT_DEPTH` levels, and no string anywhere in them (value or key, at any depth) may
 * hold control characters (other than tab, newline, carriage return) or lone surrogates. Such
 * text is never meaningful to reasoning memory and PostgreSQL cannot store NUL.
 *
 * The walk is iterative: a deeply nested argument must be a clear `INVALID_INPUT`, never a
 * stack overflow in the checker (or in Ajv, JSON.stringify or a handler after it).
 */

import { MAX_JSON_DEPTH } from '../../core/json-depth.ts';

/** Deeper than any tool's schema goes; JSON nested past it is refused before validation. */
export const MAX_ARGUMENT_DEPTH = MAX_JSON_DEPTH;

function badChar(s: string): number {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if ((c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) || (c >= 0x7f && c <= 0x9f)) return i;
  }
  return s.isWellFormed() ? -1 : 0;
}

/** What is wrong with a tool's arguments, as a JSON pointer to the first offending place. */
export type ArgumentProblem = { kind: 'too_deep'; path: string } | { kind: 'unsafe_text'; path: string };

/** A JSON pointer segment (RFC 6901), percent-encoded so a bad key never reaches a message raw. */
function segment(key: string | number): string {
  return typeof key === 'number'
    ? String(key)
    : encodeURIComponent(key.replace(/~/g, '~0').replace(/\//g, '~1'));
}

/**
 * The first problem in `value` in document order, or undefined. Nesting deeper than
 * `maxDepth` containers is `too_deep` (its path is where the limit was crossed).
 */
export function inspectArguments(value: unknown, maxDepth = MAX_ARGUMENT_DEPTH): ArgumentProblem | undefined {
  const stack: Array<{ value: unknown; path: string; depth: number }> = [{ value, path: '', depth: 0 }];
  while (stack.length > 0) {
    const { value: v, path, depth } = stack.pop()!;
    if (typeof v === 'string') {
      if (badChar(v) >= 0) return { kind: 'unsafe_text', path: path || '/' };
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (depth >= maxDepth) return { kind: 'too_deep', path: path || '/' };
    // Children are pushed in reverse so they are visited in document order.
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--)
        stack.push({ value: v[i], path: `${path}/${i}`, depth: depth + 1 });
      continue;
    }
    const entries = Object.entries(v);
    for (const [k] of entries)
      if (badChar(k) >= 0) return { kind: 'unsafe_text', path: `${path}/${segment(k)}` };
    for (let i = entries.length - 1; i >= 0; i--) {
      const [k, child] = entries[i]!;
      stack.push({ value: child, path: `${path}/${segment(k)}`, depth: depth + 1 });
    }
  }
  return undefined;
}
