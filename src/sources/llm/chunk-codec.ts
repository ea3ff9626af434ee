/**
 * How a call's streamed chunks are stored (`llm_chunks_json`, `llm_call_chunks.chunks_json`): a
 * JSON array, one element per chunk in arrival order, each either
 *
 * - `[offset_ms, data]`: the chunk's text whole, or
 * - `[offset_ms, keep, middle, tail]`: the previous element's text with its first `keep` and last
 *   `tail` UTF-16 units kept and `middle` between them.
 *
 * Consecutive events of a stream differ in a few characters (an OpenAI-style event is ~190
 * characters of envelope around a few tokens), so a stream stored as differences is about a fifth
 * of its text, and each chunk still reads back exactly as it arrived. An array's first element is
 * always whole, so each array (a batch written while streaming, the finished call's) decodes alone.
 * Arrays written before differences existed hold whole elements only and read the same.
 */

import { NoemaError } from '../../core/errors.ts';

/** The smallest shared prefix + suffix worth a difference (a whole element is simpler to read). */
const MIN_SHARED = 16;

/** `[offset_ms, text]` of a chunk stored whole, as JSON. */
export function wholeChunk(offset_ms: number, text: string): string {
  return `[${JSON.stringify(offset_ms)},${JSON.stringify(text)}]`;
}

/** A chunk as stored after `prev` (the previous chunk's text, null for the first one), as JSON. */
export function chunkAfter(prev: string | null, offset_ms: number, text: string): string {
  if (prev === null) return wholeChunk(offset_ms, text);
  const most = Math.min(prev.length, text.length);
  let keep = 0;
  while (keep < most && prev.charCodeAt(keep) === text.charCodeAt(keep)) keep++;
  // Never split a surrogate pair (a lone half would still read back, escaped, but the stored middle
  // should be text of its own).
  if (keep > 0 && isHighSurrogate(prev.charCodeAt(keep - 1))) keep--;
  let tail = 0;
  const room = most - keep;
  while (tail < room && prev.charCodeAt(prev.length - 1 - tail) === text.charCodeAt(text.length - 1 - tail))
    tail++;
  if (tail > 0 && isLowSurrogate(prev.charCodeAt(prev.length - tail))) tail--;
  if (keep + tail < MIN_SHARED) return wholeChunk(offset_ms, text);
  const middle = text.slice(keep, text.length - tail);
  return `[${JSON.stringify(offset_ms)},${keep},${JSON.stringify(middle)},${tail}]`;
}

/**
 * The chunks a stored array holds, as `[offset_ms, text]` pairs. An array not of this format is
 * LLM_TRACE_CORRUPT (`llmCallId` names the call in the error).
 */
export function decodeChunks(json: string, llmCallId: string): Array<[number, string]> {
  const corrupt = (what: string) =>
    new NoemaError('LLM_TRACE_CORRUPT', `the stored chunks of LLM call ${llmCallId} are corrupt: ${what}`, {
      status: 500,
      details: { llm_call_id: llmCallId },
    });
  let stored: unknown;
  try {
    stored = JSON.parse(json);
  } catch {
    throw corrupt('not JSON');
  }
  if (!Array.isArray(stored)) throw corrupt('not an array');
  const out: Array<[number, string]> = [];
  let prev: string | null = null;
  for (const e of stored as unknown[]) {
    let text: string;
    if (Array.isArray(e) && e.length === 2 && typeof e[1] === 'string') text = e[1];
    else if (
      prev !== null &&
      Array.isArray(e) &&
      e.length === 4 &&
      Number.isInteger(e[1]) &&
      typeof e[2] === 'string' &&
      Number.isInteger(e[3]) &&
      e[1] >= 0 &&
      e[3] >= 0 &&
      e[1] + e[3] <= prev.length
    )
      text = prev.slice(0, e[1]) + e[2] + prev.slice(prev.length - e[3]);
    else throw corrupt(`chunk ${out.length + 1} is not [offset, text] or a difference`);
    if (typeof e[0] !== 'number') throw corrupt(`chunk ${out.length + 1} has no offset`);
    out.push([e[0], text]);
    prev = text;
  }
  return out;
}

function isHighSurrogate(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}

function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}
