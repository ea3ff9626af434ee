/**
 * Input hygiene for every tool call, before any handler runs: no string anywhere in the
 * arguments may hold control characters (other than tab, newline, carriage return) or lone
 * surrogates. Such text is never meaningful to reasoning memory and PostgreSQL cannot store NUL.
 */

function badChar(s: string): number {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if ((c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) || (c >= 0x7f && c <= 0x9f)) return i;
  }
  return s.isWellFormed() ? -1 : 0;
}

/** JSON pointer of the first string (value or key) with a forbidden character, or undefined. */
export function findUnsafeText(value: unknown, path = '', depth = 0): string | undefined {
  if (typeof value === 'string') return badChar(value) >= 0 ? path || '/' : undefined;
  if (depth > 64 || value === null || typeof value !== 'object') return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const hit = findUnsafeText(value[i], `${path}/${i}`, depth + 1);
      if (hit !== undefined) return hit;
    }
    return undefined;
  }
  for (const [k, v] of Object.entries(value)) {
    if (badChar(k) >= 0) return `${path}/${encodeURIComponent(k)}`;
    const hit = findUnsafeText(v, `${path}/${k}`, depth + 1);
    if (hit !== undefined) return hit;
  }
  return undefined;
}
