/**
 * Reads a streamed Chat Completions response (server-sent events) into the trace: every event
 * as received, the concatenated assistant text, finish reason and token usage. A JSON (non
 * streamed) completion is accepted too and recorded as one chunk.
 *
 * Every streamed text (the content, reasoning, each tool call's arguments) passes through its own
 * redaction window (`Redactor.stream`): a secret split across events is redacted in what is
 * observed (`cleanText`) and in the chunks as stored, where a held-back piece moves to the next
 * event of that text, and what is still held at the end to the last one.
 */

import { createParser } from 'eventsource-parser';
import { SourceFailure } from '../failure.ts';
import { MAX_RESPONSE_BYTES, readBoundedText } from '../http-json/read-body.ts';
import type { HttpReply } from '../http-transport.ts';
import { createRedactor, type TextWindow } from '../redact.ts';
import { classifyUpstream, readUpstreamError } from './upstream-errors.ts';

export interface StreamChunk {
  seq: number;
  offset_ms: number;
  data: string;
  /**
   * `data` with its streamed texts as the redaction windows let them through, where that differs
   * (a piece held back, or a secret completed): what is stored in its place.
   */
  windowed?: string;
  /**
   * The chunk as stored after the one before it (`chunk-codec.ts`: JSON, redacted), kept once made:
   * a batch written while streaming and the finish then encode each chunk once between them.
   */
  stored?: string;
  /** `data` redacted, once `stored` is made: what the next chunk is stored as a difference from. */
  clean?: string;
}

export interface StreamState {
  chunks: StreamChunk[];
  /** How many of `chunks` were persisted while streaming (`llm_call_chunks`). */
  persisted: number;
  rawText: string;
  /** `rawText` as the content's redaction window let it through: what observers are given. */
  cleanText: string;
  /** Makes a redaction window per streamed text (set once the call's redactor is known). */
  windowOf: () => TextWindow;
  /** Each streamed text's window, by text (`content`, `tool_calls.0.arguments`, …). */
  windows: Map<string, { window: TextWindow; lastChunk: number }>;
  finishReason: string | null;
  usage: Record<string, unknown> | null;
  firstChunkAt: number | null;
  /** The delta fields reasoning text is read from (the provider profile's). */
  reasoningFields: ReadonlyArray<'reasoning_content' | 'reasoning'>;
  /** The reasoning text, as it arrived in `reasoningFields`. */
  reasoningText: string;
  /** A refusal (`delta.refusal`, OpenAI's structured outputs), as it arrived. */
  refusalText: string;
}

export function newStreamState(): StreamState {
  return {
    chunks: [],
    persisted: 0,
    rawText: '',
    cleanText: '',
    windowOf: () => PASS_THROUGH.stream(),
    windows: new Map(),
    finishReason: null,
    usage: null,
    firstChunkAt: null,
    reasoningFields: ['reasoning_content', 'reasoning'],
    reasoningText: '',
    refusalText: '',
  };
}

const PASS_THROUGH = createRedactor([]);

/**
 * How many chunks, from the first, are final as stored: a chunk whose text's window still holds
 * characters gets them at the end when no later event of that text comes.
 */
export function settledChunks(state: StreamState): number {
  let settled = state.chunks.length;
  for (const w of state.windows.values()) if (w.window.held > 0) settled = Math.min(settled, w.lastChunk);
  return settled;
}

/**
 * Ends every window: the held characters go to the last chunk of their text (whose stored form,
 * and the ones after it, are made again). Call at the end of the stream, however it ended.
 */
export function endWindows(state: StreamState): void {
  for (const [key, w] of state.windows) {
    const tail = w.window.end();
    if (tail === '') continue;
    if (key === 'content') state.cleanText += tail;
    const chunk = state.chunks[w.lastChunk]!;
    const event = JSON.parse(chunk.windowed ?? chunk.data) as Completion;
    rewriteTexts(event, (k, piece) => (k === key ? piece + tail : piece));
    chunk.windowed = JSON.stringify(event);
    for (let i = w.lastChunk; i < state.chunks.length; i++) {
      delete state.chunks[i]!.stored;
      delete state.chunks[i]!.clean;
    }
  }
}

type Message = {
  content?: string | null;
  refusal?: string | null;
  reasoning_content?: string | null;
  reasoning?: string | null;
  tool_calls?: Array<{ index?: number; function?: { arguments?: string | null } }>;
};

type Completion = {
  choices?: Array<{
    delta?: Message;
    message?: Message;
    finish_reason?: string | null;
  }>;
  usage?: Record<string, unknown> | null;
  error?: { message?: string } | string;
};

const TEXT_FIELDS = ['content', 'reasoning_content', 'reasoning', 'refusal'] as const;

/**
 * Rewrites the streamed texts of an event's first choice in place — each passed to `rewrite` with
 * its name, the same in every event of the stream (`content`, `tool_calls.0.arguments`, …) — and
 * says whether any changed. Every event of every streamed call passes here, so nothing is made per
 * text.
 */
function rewriteTexts(event: Completion, rewrite: (key: string, piece: string) => string): boolean {
  const choice = event.choices?.[0];
  const m = choice?.delta ?? choice?.message;
  if (!m || typeof m !== 'object') return false;
  let changed = false;
  // Indexed: until this is optimized, a `for…of` makes an iterator result per field.
  for (let f = 0; f < TEXT_FIELDS.length; f++) {
    const field = TEXT_FIELDS[f]!;
    const piece = m[field];
    if (typeof piece !== 'string') continue;
    const out = rewrite(field, piece);
    if (out !== piece) {
      m[field] = out;
      changed = true;
    }
  }
  if (Array.isArray(m.tool_calls)) {
    for (let n = 0; n < m.tool_calls.length; n++) {
      const call = m.tool_calls[n];
      const fn = call?.function;
      if (!fn || typeof fn.arguments !== 'string') continue;
      const piece = fn.arguments;
      const out = rewrite(`tool_calls.${call!.index ?? n}.arguments`, piece);
      if (out !== piece) {
        fn.arguments = out;
        changed = true;
      }
    }
  }
  return changed;
}

/** Passes the event's streamed texts through their windows; `chunk.windowed` where one changed. */
function windowTexts(state: StreamState, event: Completion, chunkIndex: number): void {
  if (rewriteTexts(event, (key, piece) => passWindow(state, key, piece, chunkIndex)))
    state.chunks[chunkIndex]!.windowed = JSON.stringify(event);
}

/** `piece` of the text `key` through that text's window (made at its first piece): what it lets through. */
function passWindow(state: StreamState, key: string, piece: string, chunkIndex: number): string {
  let w = state.windows.get(key);
  if (!w) {
    w = { window: state.windowOf(), lastChunk: chunkIndex };
    state.windows.set(key, w);
  }
  w.lastChunk = chunkIndex;
  const out = w.window.push(piece);
  if (key === 'content') state.cleanText += out;
  return out;
}

function apply(state: StreamState, data: string): void {
  let event: Completion;
  try {
    event = JSON.parse(data) as Completion;
  } catch {
    throw new SourceFailure(
      'protocol',
      `LLM stream carried an event that is not JSON: ${data.slice(0, 200)}`,
    );
  }
  if (event.error) {
    // A mid-stream error (OpenRouter's, with the status it would have answered as `code`) is
    // classed as that answer would be; one that says nothing more is `upstream_error`.
    const e = readUpstreamError(event, data);
    const code =
      typeof event.error === 'object' ? Number((event.error as { code?: unknown }).code) : Number.NaN;
    const cls = classifyUpstream(code >= 400 && code < 600 ? code : 400, e) ?? 'upstream_error';
    throw new SourceFailure(cls, `LLM stream reported an error: ${e.message}`);
  }
  const choice = event.choices?.[0];
  const m = choice?.delta ?? choice?.message;
  if (m && typeof m === 'object') {
    if (typeof m.content === 'string') state.rawText += m.content;
    if (typeof m.refusal === 'string') state.refusalText += m.refusal;
    // The first of the profile's fields that carries it: a server sending both names at once
    // (vLLM keeps `reasoning_content` alongside `reasoning`) is read once.
    for (let f = 0; f < state.reasoningFields.length; f++) {
      const piece = m[state.reasoningFields[f]!];
      if (typeof piece === 'string' && piece !== '') {
        state.reasoningText += piece;
        break;
      }
    }
  }
  if (choice?.finish_reason) state.finishReason = choice.finish_reason;
  if (event.usage) state.usage = event.usage;
  // Last: it rewrites the event's texts.
  windowTexts(state, event, state.chunks.length - 1);
  // The answer is complete: nothing held waits for a text that will not come (its last batch is whole).
  if (choice?.finish_reason) endWindows(state);
}

function record(state: StreamState, data: string, startedAt: number): void {
  const now = Date.now();
  state.firstChunkAt ??= now;
  state.chunks.push({ seq: state.chunks.length + 1, offset_ms: now - startedAt, data });
}

/**
 * Consumes the body of `res` into `state`, calling `onChunk` after each recorded event. Throws
 * SourceFailure on malformed or error events.
 */
export async function readCompletionStream(
  res: HttpReply,
  state: StreamState,
  startedAt: number,
  onChunk: () => void = () => {},
): Promise<void> {
  try {
    await readEvents(res, state, startedAt, onChunk);
  } finally {
    // However the stream ended, nothing stays held: a failed call's chunks are stored whole too.
    endWindows(state);
  }
}

async function readEvents(
  res: HttpReply,
  state: StreamState,
  startedAt: number,
  onChunk: () => void,
): Promise<void> {
  const type = res.header('content-type') ?? '';
  if (!type.includes('text/event-stream')) {
    const text = await readBoundedText(res, 'LLM');
    record(state, text, startedAt);
    apply(state, text);
    return;
  }
  const decoder = new TextDecoder();
  let done = false;
  // A spec-complete reader (CR, LF and CRLF line ends, a BOM, comments, `retry:`, `id:`, fields split
  // across reads): each event's data is recorded as it arrived, with its time.
  const parser = createParser({
    onEvent(event) {
      if (done) return; // nothing after `[DONE]` is read, in this piece of the body or a later one
      const data = event.data;
      record(state, data, startedAt);
      try {
        if (data.trim() === '[DONE]') done = true;
        else apply(state, data);
      } finally {
        // After `apply`: the chunk is stored as its texts' windows let them through.
        onChunk();
      }
    },
  });
  let size = 0;
  try {
    for (;;) {
      const part = await res.read();
      if (part === null) break;
      // The same cap as any HTTP body: a runaway stream must not fill memory and the trace.
      size += part.byteLength;
      if (size > MAX_RESPONSE_BYTES) {
        throw new SourceFailure('protocol', `LLM response stream exceeds ${MAX_RESPONSE_BYTES} bytes`, {
          details: { max_response_bytes: MAX_RESPONSE_BYTES },
        });
      }
      parser.feed(decoder.decode(part, { stream: true }));
      if (done) {
        // Nothing after `[DONE]` is read. The body's end, when it has already arrived, is taken
        // rather than the body cancelled, which would close a connection the next call can reuse.
        // A body not ended by the next turn of the event loop is cancelled.
        if (!(await res.endsNow())) res.cancel();
        break;
      }
    }
  } catch (err) {
    // The body is cancelled, its connection let go.
    res.cancel();
    throw err;
  }
  if (done) return;
  // The body ended: an event it left without its blank line (a last `data:` line) is read as one.
  parser.feed(`${decoder.decode()}\n\n`);
}
