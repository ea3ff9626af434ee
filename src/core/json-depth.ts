/**
 * How deep JSON may nest where it enters Noema (HTTP bodies, MCP tool arguments), and the one
 * iterative check of it: a deep document must be a clear INVALID_INPUT, never a stack overflow in
 * a validator, the canonicalizer or a handler after it.
 */
import { NoemaError } from './errors.ts';
import { formatPointer } from './json-pointer.ts';

/** Deeper than any schema, tool or document Noema takes; JSON nested past it is refused on entry. */
export const MAX_JSON_DEPTH = 64;

/**
 * The JSON pointer of the first container (in document order) nested deeper than `maxDepth`
 * containers, or undefined. Iterative, so any depth is safe to ask about.
 */
export function tooDeepAt(value: unknown, maxDepth = MAX_JSON_DEPTH): string | undefined {
  const stack: Array<{ value: unknown; path: string[] }> = [{ value, path: [] }];
  while (stack.length > 0) {
    const { value: v, path } = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (path.length >= maxDepth) return formatPointer(path) || '/';
    const entries = Array.isArray(v) ? v.map((x, i) => [String(i), x] as const) : Object.entries(v);
    // Pushed in reverse so children are visited in document order.
    for (let i = entries.length - 1; i >= 0; i--) {
      const [k, child] = entries[i]!;
      if (child !== null && typeof child === 'object') stack.push({ value: child, path: [...path, k] });
    }
  }
  return undefined;
}

/** Throws INVALID_INPUT (naming `what` and where the limit was crossed) when `value` nests too deep. */
export function assertJsonDepth(value: unknown, what: string, maxDepth = MAX_JSON_DEPTH): void {
  const at = tooDeepAt(value, maxDepth);
  if (at === undefined) return;
  throw new NoemaError(
    'INVALID_INPUT',
    `${what} nests deeper than ${maxDepth} levels (at ${at.slice(0, 200)})`,
    {
      status: 400,
      details: { path: at.slice(0, 1000), max_depth: maxDepth },
      hint: `flatten it: Noema takes no JSON nested deeper than ${maxDepth} levels`,
    },
  );
}
