/**
 * JSON text escaped as the inside of a JSON string, from its UTF-8 bytes: what `JSON.stringify`
 * writes for that text between its quotes, without decoding it into a string. A `"` or `\` gets a
 * backslash; every other byte is copied (a multi-byte character's bytes are none of those two).
 * Text `JSON.stringify` wrote never holds a raw control character; one found stops the escape (-1),
 * and the caller escapes that text the slow way.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Writes `bytes[from, to)` escaped into `out` at `at` (room for twice the bytes); returns where it
 * ended, or -1 at a control character. The bytes that need nothing (letters, digits, most
 * punctuation: above `\`, or between `"` and `\`) are tested first: about a fifth faster than
 * testing for the two escaped ones first.
 */
export function escapeRange(
  bytes: Uint8Array,
  from: number,
  to: number,
  out: Uint8Array,
  at: number,
): number {
  let o = at;
  for (let i = from; i < to; i++) {
    const c = bytes[i]!;
    if (c > BACKSLASH || (c > QUOTE && c < BACKSLASH)) out[o++] = c;
    else if (c === QUOTE || c === BACKSLASH) {
      out[o++] = BACKSLASH;
      out[o++] = c;
    } else if (c < 0x20) return -1;
    else out[o++] = c;
  }
  return o;
}

/** `bytes` escaped into a buffer of their own, or null at a control character. */
export function escaped(bytes: Uint8Array): Buffer | null {
  const out = Buffer.allocUnsafe(2 * bytes.length);
  const end = escapeRange(bytes, 0, bytes.length, out, 0);
  return end < 0 ? null : out.subarray(0, end);
}
