/**
 * Buffers reused for large answers (a world's JSON: hundreds of kilobytes to megabytes, over HTTP
 * and MCP). A fresh buffer of that size pays a page fault per 4 KB of new memory as it is written,
 * and V8 counts buffers' memory toward its collections: a few dozen megabyte-sized answers make it
 * run a full mark-compact, most of such an answer's p99. So an answer's buffer is taken from a small
 * pool and given back once its bytes have been handed to the operating system. One never given back
 * (the client went away mid-answer) is left to the collector: memory a write may still hold is never
 * handed out again.
 */

/** Free buffers kept, the largest one kept (bigger answers get memory of their own), the smallest made. */
const MAX_FREE = 4;
const MAX_POOLED_BYTES = 16 << 20;
const MIN_POOLED_BYTES = 64 << 10;

/** Memory ready for another answer, smallest first. */
const free: ArrayBuffer[] = [];
/** Memory handed out and not yet given back: only this is ever taken back into the pool. */
const lent = new WeakSet<ArrayBuffer>();
/** Counts for `poolStats`. */
let lentCount = 0;
let takenCount = 0;

/** `length` bytes (uninitialized) to write an answer into; give them back with `giveBack` once sent. */
export function takeBytes(length: number): Buffer {
  if (length > MAX_POOLED_BYTES) return Buffer.allocUnsafeSlow(length);
  const i = free.findIndex((b) => b.byteLength >= length);
  let memory: ArrayBuffer;
  if (i >= 0) memory = free.splice(i, 1)[0]!;
  else {
    // Room to grow: the next answers of a world are about this size.
    let size = MIN_POOLED_BYTES;
    while (size < length) size *= 2;
    // Memory of its own (`allocUnsafe` may slice a shared one), so a view of it names it alone.
    memory = Buffer.allocUnsafeSlow(size).buffer as ArrayBuffer;
  }
  lent.add(memory);
  lentCount++;
  takenCount++;
  return Buffer.from(memory, 0, length);
}

/**
 * Gives back the memory `bytes` (any view of what `takeBytes` returned) lie in, once nothing will
 * read them again. Bytes the pool did not lend, or lent and already given back, are left alone.
 */
export function giveBack(bytes: Uint8Array): void {
  const memory = bytes.buffer as ArrayBuffer;
  if (!lent.delete(memory)) return;
  lentCount--;
  if (free.length >= MAX_FREE) free.shift();
  free.push(memory);
  free.sort((a, b) => a.byteLength - b.byteLength);
}

/**
 * The pool's state, for tests: buffers free in it, lent and not given back (answers being sent, or
 * never given back), and lent in all.
 */
export function poolStats(): { free: number; lent: number; taken: number } {
  return { free: free.length, lent: lentCount, taken: takenCount };
}
