/**
 * Reads a streamed Chat Completions response (server-sent events) into the trace: every event
 * as received, the concatenated assistant text, finish reason and token usage. A JSON (non
 * streamed) completion is accepted too and recorded as one chunk.
 */
import { SourceFailure } from '../failure.ts';
import { MAX_RESPONSE_BYTES, readBoundedText } from '../http-json/read-body.ts';
import type { HttpReply } from '../http-transport.ts';

export interface StreamChunk {
  seq: number;
  offset_ms: number;
  data: string;
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
  finishReason: string | null;
  usage: Record<string, unknown> | null;
  firstChunkAt: number | null;
}

export function newStreamState(): StreamState {
  return { chunks: [], persisted: 0, rawText: '', finishReason: null, usage: null, firstChunkAt: null };
}

type Completion = {
  choices?: Array<{
    delta?: { content?: string | null };
    message?: { content?: string | null };
    finish_reason?: string | null;
  }>;
  usage?: Record<string, unknown> | null;
  error?: { message?: string } | string;
};

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
    const msg =
      typeof event.error === 'string' ? event.error : (event.error.message ?? JSON.stringify(event.error));
    throw new SourceFailure('upstream_error', `LLM stream reported an error: ${msg}`);
  }
  const choice = event.choices?.[0];
  const piece = choice?.delta?.content ?? choice?.message?.content;
  if (typeof piece === 'string') state.rawText += piece;
  if (choice?.finish_reason) state.finishReason = choice.finish_reason;
  if (event.usage) state.usage = event.usage;
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
  const type = res.header('content-type') ?? '';
  if (!type.includes('text/event-stream')) {
    const text = await readBoundedText(res, 'LLM');
    record(state, text, startedAt);
    apply(state, text);
    return;
  }
  const decoder = new TextDecoder();
  let buffer = '';
  let dataLines: string[] = [];
  let done = false;
  const dispatch = () => {
    if (dataLines.length === 0) return;
    const data = dataLines.join('\n');
    dataLines = [];
    record(state, data, startedAt);
    onChunk();
    if (data.trim() === '[DONE]') done = true;
    else apply(state, data);
  };
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
      buffer += decoder.decode(part, { stream: true });
      let nl = buffer.indexOf('\n');
      // Nothing after `[DONE]` is read, in this piece of the body or a later one.
      while (nl >= 0 && !done) {
        const line = buffer.slice(0, nl).replace(/\r$/, '');
        buffer = buffer.slice(nl + 1);
        if (line === '') dispatch();
        else if (line.startsWith('data:')) dataLines.push(line.slice(5).replace(/^ /, ''));
        nl = buffer.indexOf('\n');
      }
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
  if (buffer.startsWith('data:')) dataLines.push(buffer.slice(5).replace(/^ /, ''));
  dispatch();
}
