/**
 * RFC 6901 JSON Pointers, the project's one implementation: parsing (`~1` → `/`, `~0` → `~`),
 * own-property reads, and writes that refuse the tokens that reach an object's prototype.
 */
import { NoemaError } from './errors.ts';

/** Tokens a pointer that writes (or is validated for writing) may never contain: they reach prototypes. */
export const PROTOTYPE_TOKENS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

function unescapeToken(token: string): string {
  // Most tokens have no escape: skip the two scans for them.
  if (!token.includes('~')) return token;
  return token.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** The unescaped tokens of `pointer` (`''` is the whole document: no tokens); `null` when it is not a pointer. */
export function parsePointer(pointer: string): string[] | null {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) return null;
  return pointer.slice(1).split('/').map(unescapeToken);
}

/** The pointer of `tokens`, escaping `~` and `/`. */
export function formatPointer(tokens: readonly string[]): string {
  return tokens.map((t) => `/${t.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

/** Why `pointer` cannot be used to write (not a pointer, or a prototype token), or `null` when it can. */
export function unsafePointerReason(pointer: unknown): string | null {
  if (typeof pointer !== 'string') return 'is not a string';
  const tokens = parsePointer(pointer);
  if (!tokens) return 'does not start with "/"';
  const bad = tokens.find((t) => PROTOTYPE_TOKENS.has(t));
  return bad === undefined ? null : `contains the token "${bad}"`;
}

const ARRAY_INDEX = /^(0|[1-9][0-9]*)$/;

/**
 * The value at `pointer` in `doc`, following only own properties (and array indexes in RFC 6901
 * form), so nothing inherited — `constructor`, `__proto__`, an array's `length` — is ever read.
 */
export function readPointer(doc: unknown, pointer: string): { ok: true; value: unknown } | { ok: false } {
  const tokens = parsePointer(pointer);
  if (!tokens) return { ok: false };
  let cur: unknown = doc;
  for (const t of tokens) {
    if (Array.isArray(cur)) {
      if (!ARRAY_INDEX.test(t) || Number(t) >= cur.length) return { ok: false };
      cur = cur[Number(t)];
    } else if (cur !== null && typeof cur === 'object' && Object.hasOwn(cur, t)) {
      cur = (cur as Record<string, unknown>)[t];
    } else return { ok: false };
  }
  return cur === undefined ? { ok: false } : { ok: true, value: cur };
}

/**
 * Sets `value` at `pointer` inside `target`, creating plain objects (or replacing non-objects) on
 * the way; walks own properties only. A pointer that is not one, is `''`, or holds a prototype token
 * is INVALID_INPUT and writes nothing.
 */
export function writePointer(target: Record<string, unknown>, pointer: string, value: unknown): void {
  const why = unsafePointerReason(pointer);
  const tokens = why === null ? parsePointer(pointer) : null;
  if (!tokens || tokens.length === 0) {
    throw new NoemaError(
      'INVALID_INPUT',
      `cannot write at JSON pointer "${pointer}": ${why ?? 'it is empty'}`,
      {
        details: { pointer },
      },
    );
  }
  let cur = target;
  for (let i = 0; i < tokens.length - 1; i++) {
    const t = tokens[i]!;
    const next = Object.hasOwn(cur, t) ? cur[t] : undefined;
    if (next === null || typeof next !== 'object' || Array.isArray(next)) cur[t] = {};
    cur = cur[t] as Record<string, unknown>;
  }
  cur[tokens[tokens.length - 1]!] = value;
}
