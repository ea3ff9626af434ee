// Identifiers: time-ordered UUIDv7 generation, and the two grammars for caller-supplied ids
// (human-facing names, and liberal entity ids).

import { randomFillSync } from 'node:crypto';
import { invalidInput } from './errors.ts';

export type IdResult = { ok: true; value: string } | { ok: false; error: string };

const HEX: string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
const MAX_COUNTER = 0xfff;
const bytes = new Uint8Array(16);
// Random bytes come from a pool refilled in one call: a CSPRNG call per id costs more than
// the rest of the id together on hot paths (one id per source invocation, per trace row).
const POOL_IDS = 256;
const pool = new Uint8Array(10 * POOL_IDS);
let poolAt = pool.length;
let lastMs = -1;
let counter = 0;

/**
 * A new RFC 9562 UUIDv7 (lowercase). Within this process ids sort, as strings, in creation order:
 * rand_a holds a 12-bit counter (RFC 9562 §6.2 method 1) seeded randomly in its lower half each
 * millisecond; if it overflows, or the clock steps back, the timestamp is advanced past the last one used.
 */
export function uuidv7(): string {
  if (poolAt === pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  bytes.set(pool.subarray(poolAt, poolAt + 10), 6);
  poolAt += 10;
  const now = Date.now();
  if (now > lastMs) {
    lastMs = now;
    counter = seedCounter();
  } else if (counter < MAX_COUNTER) {
    counter += 1;
  } else {
    lastMs += 1;
    counter = seedCounter();
  }
  // 48-bit big-endian milliseconds; division because bitwise ops truncate to 32 bits.
  let ms = lastMs;
  for (let i = 5; i >= 0; i--) {
    bytes[i] = ms % 256;
    ms = Math.floor(ms / 256);
  }
  bytes[6] = 0x70 | (counter >> 8);
  bytes[7] = counter & 0xff;
  bytes[8] = 0x80 | (bytes[8]! & 0x3f);
  const h = (i: number): string => HEX[bytes[i]!]!;
  return `${h(0)}${h(1)}${h(2)}${h(3)}-${h(4)}${h(5)}-${h(6)}${h(7)}-${h(8)}${h(9)}-${h(10)}${h(11)}${h(12)}${h(13)}${h(14)}${h(15)}`;
}

function seedCounter(): number {
  // Leftmost counter bit starts at 0 so at least 2048 ids fit in a millisecond before overflow.
  return ((bytes[6]! << 8) | bytes[7]!) & 0x7ff;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

/** True for any UUID in canonical 8-4-4-4-12 hex form (any version, either case). */
export function isUuid(s: unknown): s is string {
  return typeof s === 'string' && UUID.test(s);
}

/** Unix milliseconds embedded in a UUIDv7. Throws INVALID_INPUT for anything that is not a v7 UUID. */
export function uuidv7Timestamp(id: string): number {
  if (!UUID_V7.test(id)) throw invalidInput('not a UUIDv7', { value: id });
  return Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
}

/** True when `s` contains a C0 control character, DEL, or a C1 control character. */
export function hasControlChars(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) return true;
  }
  return false;
}

const EDGE_WHITESPACE = /^\s|\s$/;
const HUMAN_ID = /^[\p{L}\p{M}\p{N}._\-/:@+]+$/u;

function checkCommon(s: unknown, field: string, maxLength: number): string | undefined {
  if (typeof s !== 'string') return `${field} must be a string`;
  if (s.length === 0) return `${field} must not be empty`;
  if (s.length > maxLength) return `${field} must be at most ${maxLength} characters (got ${s.length})`;
  if (hasControlChars(s)) return `${field} must not contain control characters`;
  if (!s.isWellFormed()) return `${field} must be well-formed Unicode (no lone surrogates)`;
  if (EDGE_WHITESPACE.test(s)) return `${field} must not start or end with whitespace`;
  return undefined;
}

/**
 * Grammar for human-facing names (workspaces, branches, documents): 1..maxLength UTF-16 units of
 * letters, marks, digits and `._-/:@+`; no whitespace or control characters.
 */
export function parseHumanId(s: unknown, field: string, maxLength = 128): IdResult {
  const error = checkCommon(s, field, maxLength);
  if (error !== undefined) return { ok: false, error };
  const str = s as string;
  if (!HUMAN_ID.test(str)) {
    return { ok: false, error: `${field} may contain only letters, digits and . _ - / : @ +` };
  }
  return { ok: true, value: str };
}

/**
 * Grammar for liberal ids (graph node ids, user ids): 1..maxLength UTF-16 units of well-formed
 * Unicode without control characters or leading/trailing whitespace.
 */
export function parseEntityId(s: unknown, field: string, maxLength = 256): IdResult {
  const error = checkCommon(s, field, maxLength);
  return error === undefined ? { ok: true, value: s as string } : { ok: false, error };
}

/** parseHumanId that returns the id or throws NoemaError INVALID_INPUT with `details.field`. */
export function assertHumanId(s: unknown, field: string, maxLength = 128): string {
  return unwrap(parseHumanId(s, field, maxLength), field);
}

/** parseEntityId that returns the id or throws NoemaError INVALID_INPUT with `details.field`. */
export function assertEntityId(s: unknown, field: string, maxLength = 256): string {
  return unwrap(parseEntityId(s, field, maxLength), field);
}

function unwrap(result: IdResult, field: string): string {
  if (result.ok) return result.value;
  throw invalidInput(result.error, { field });
}
