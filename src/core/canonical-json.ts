// RFC 8785 JSON Canonicalization Scheme (JCS): the one byte-exact JSON form that content hashes are taken over.
// Built for hot paths: one recursive pass building strings (V8 concatenation is amortized O(1)), no
// per-value path bookkeeping (the path is assembled only while an error unwinds).

import { ErrorCode, NoemaError } from './errors.ts';

type PathSegment = string | number;

/**
 * Deepest nesting canonicalized: far past anything a boundary lets in (`MAX_JSON_DEPTH`), far
 * short of the recursion overflowing the stack (about 5 000 levels).
 */
export const MAX_CANONICAL_DEPTH = 1000;

/** Thrown internally; each enclosing array/object adds its segment while it propagates. */
class Unserializable {
  readonly what: string;
  readonly path: PathSegment[] = [];
  constructor(what: string) {
    this.what = what;
  }
}

/**
 * Serializes `value` per RFC 8785: object keys sorted by UTF-16 code units, ECMAScript number
 * formatting (-0 → "0"), only the mandatory string escapes.
 *
 * Follows JSON.stringify where RFC 8785 is silent: `toJSON` is called (so a Date becomes its ISO
 * string), boxed primitives are unboxed, object properties whose value is `undefined` are omitted.
 * Everything that cannot round-trip deterministically throws NoemaError NOT_CANONICALIZABLE with
 * `details.path` (e.g. `$.a[2]`): non-finite numbers, bigint, functions, symbols, `undefined` at
 * top level or in arrays, cycles, strings with lone surrogates (I-JSON forbids them, and JCS
 * requires I-JSON), Map/Set/typed arrays (JSON.stringify would silently turn them into `{}`,
 * which would make distinct values share a hash), and nesting deeper than `MAX_CANONICAL_DEPTH`.
 */
export function canonicalJson(value: unknown): string {
  try {
    return serialize(value, '', []);
  } catch (e) {
    if (e instanceof Unserializable) throw notCanonicalizable(e);
    // A caller already deep in its own stack may overflow before the depth bound: same answer.
    if (e instanceof RangeError && /call stack/i.test(e.message))
      throw notCanonicalizable(new Unserializable('nesting too deep for the stack'));
    throw e;
  }
}

// `ancestors` is a plain array: nesting is shallow in practice, and a linear scan beats Set add/delete.
function serialize(input: unknown, key: string, ancestors: object[]): string {
  let value = input;
  if ((typeof value === 'object' && value !== null) || typeof value === 'bigint') {
    // BigInt.prototype.toJSON may be user-defined; JSON.stringify honours it, so do we.
    const toJSON = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') value = toJSON.call(value, key);
  }
  switch (typeof value) {
    case 'string':
      return serializeString(value);
    case 'number':
      if (!Number.isFinite(value)) throw new Unserializable(`non-finite number ${String(value)}`);
      // Number#toString is exactly the ECMAScript serialization JCS mandates; it already maps -0 to "0".
      return String(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object': {
      if (value === null) return 'null';
      if (Array.isArray(value)) return serializeArray(value, ancestors);
      const proto = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) return serializeExotic(value, key, ancestors);
      return serializeObject(value as Record<string, unknown>, ancestors);
    }
    case 'undefined':
      throw new Unserializable('undefined');
    default:
      throw new Unserializable(typeof value);
  }
}

function serializeExotic(value: object, key: string, ancestors: object[]): string {
  if (value instanceof Number || value instanceof String || value instanceof Boolean) {
    return serialize(value.valueOf(), key, ancestors);
  }
  if (value instanceof Map || value instanceof Set || ArrayBuffer.isView(value)) {
    throw new Unserializable(`unsupported object type ${value.constructor.name}`);
  }
  return serializeObject(value as Record<string, unknown>, ancestors);
}

function tooDeep(): never {
  throw new Unserializable(`nesting deeper than ${MAX_CANONICAL_DEPTH} levels`);
}

function serializeArray(arr: readonly unknown[], ancestors: object[]): string {
  if (ancestors.length >= MAX_CANONICAL_DEPTH) tooDeep();
  if (ancestors.includes(arr)) throw new Unserializable('cycle');
  ancestors.push(arr);
  let out = '[';
  for (let i = 0; i < arr.length; i++) {
    try {
      out += (i === 0 ? '' : ',') + serialize(arr[i], String(i), ancestors);
    } catch (e) {
      if (e instanceof Unserializable) e.path.push(i);
      throw e;
    }
  }
  ancestors.pop();
  return `${out}]`;
}

function serializeObject(obj: Record<string, unknown>, ancestors: object[]): string {
  if (ancestors.length >= MAX_CANONICAL_DEPTH) tooDeep();
  if (ancestors.includes(obj)) throw new Unserializable('cycle');
  ancestors.push(obj);
  // The default sort compares UTF-16 code units, which is exactly the JCS key order.
  const keys = Object.keys(obj).sort();
  let out = '{';
  let first = true;
  for (const key of keys) {
    const v = obj[key];
    if (v === undefined) continue;
    try {
      out += `${first ? '' : ','}${serializeString(key)}:${serialize(v, key, ancestors)}`;
    } catch (e) {
      if (e instanceof Unserializable) e.path.push(key);
      throw e;
    }
    first = false;
  }
  ancestors.pop();
  return `${out}}`;
}

// Quote, backslash, C0 controls, and surrogates (to check pairing); anything else is emitted as is.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the purpose.
const NEEDS_CARE = /["\\\u0000-\u001f\ud800-\udfff]/;

function serializeString(s: string): string {
  if (!NEEDS_CARE.test(s)) return `"${s}"`;
  if (!s.isWellFormed()) throw new Unserializable('string with a lone surrogate');
  // For well-formed strings JSON.stringify emits exactly the JCS escapes: \b \t \n \f \r \" \\ short
  // forms, other C0 controls as lowercase \u00xx, everything else (including "/" and non-ASCII) as is.
  return JSON.stringify(s);
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function notCanonicalizable(e: Unserializable): NoemaError {
  // Segments were pushed innermost first while unwinding.
  let at = '$';
  for (let i = e.path.length - 1; i >= 0; i--) {
    const seg = e.path[i]!;
    if (typeof seg === 'number') at += `[${seg}]`;
    else if (IDENTIFIER.test(seg)) at += `.${seg}`;
    else at += `[${JSON.stringify(seg)}]`;
  }
  const shown = at.length > 200 ? `${at.slice(0, 200)}…` : at;
  return new NoemaError(ErrorCode.NOT_CANONICALIZABLE, `cannot canonicalize ${e.what} at ${shown}`, {
    details: { path: at, reason: e.what },
    hint: 'Use only JSON values: finite numbers, strings, booleans, null, arrays and plain objects without cycles.',
    status: 400,
  });
}
