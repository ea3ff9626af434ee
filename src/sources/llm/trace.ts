/**
 * The rich LLM trace (the `llm_calls` view: request, chunks, artifacts, usage), kept in `llm_*`
 * columns of the invocation row itself: written by the statement that inserts the running row
 * and by the one that finishes it (one row, one statement per transaction).
 */
import type { Queryable } from '../../store/store.ts';
import type { Redactor } from '../redact.ts';
import { type RecordedResponse, type TraceStatement, type TraceValues, traceColumns } from '../source.ts';
import { chunkAfter, wholeChunk } from './chunk-codec.ts';
import { type StreamChunk, type StreamState, settledChunks } from './stream.ts';

const RUNNING_COLUMNS = traceColumns(
  'llm_endpoint_name',
  'llm_base_url',
  'llm_model',
  'llm_schema_delivery',
  'llm_request_json',
  'llm_response_headers',
  'llm_normalized_is_raw',
  'llm_chunk_count',
  'llm_artifacts_json',
);

const FINISHED_COLUMNS = traceColumns(
  'llm_http_status',
  'llm_response_headers',
  'llm_raw_text',
  'llm_normalized_text',
  'llm_normalized_is_raw',
  'llm_finish_reason',
  'llm_prompt_tokens',
  'llm_completion_tokens',
  'llm_total_tokens',
  'llm_usage_json',
  'llm_chunk_count',
  'llm_chunks_json',
  'llm_artifacts_json',
  'llm_first_chunk_at',
);

export interface LlmCallStart {
  endpoint_name: string;
  base_url: string;
  model: string;
  schema_delivery: string;
  /** The wire body. */
  request_json: Record<string, unknown>;
  /**
   * The body's `messages` are the invocation request's own (`source_invocations.request_json`
   * `.messages`): stored once, there, and the body keeps `"messages": null` in their place.
   */
  messages_in_request: boolean;
  /**
   * The body's `response_format.json_schema.schema` is the invocation's result schema, stored once
   * in `json_schemas` under its `output_schema_hash`: the body keeps `"schema": null` in its place.
   * A world's tool-loop schema is about 3 KB, a third of a generation's row.
   */
  schema_in_store: boolean;
}

/** The wire body as stored: what is stored elsewhere once (see `LlmCallStart`) replaced by null. */
function storedBody(c: LlmCallStart): Record<string, unknown> {
  if (!c.messages_in_request && !c.schema_in_store) return c.request_json;
  const body: Record<string, unknown> = { ...c.request_json };
  if (c.messages_in_request) body.messages = null;
  const format = body.response_format as { json_schema?: Record<string, unknown> } | undefined;
  if (c.schema_in_store && format?.json_schema) {
    body.response_format = { ...format, json_schema: { ...format.json_schema, schema: null } };
  }
  return body;
}

/**
 * The stored wire body `body` (parsed) made whole again: `messages` from the invocation's request,
 * the result schema from `json_schemas` — each loaded only where the body left it out. Mutates `body`.
 */
export async function wholeBody(
  body: Record<string, unknown>,
  load: { messages: () => unknown; schema: () => Promise<unknown> },
): Promise<Record<string, unknown>> {
  if (body.messages === null) body.messages = load.messages();
  const format = body.response_format as { json_schema?: Record<string, unknown> } | undefined;
  if (format?.json_schema && format.json_schema.schema === null)
    format.json_schema.schema = await load.schema();
  return body;
}

/** The running row's LLM columns. */
export function llmRunningColumns(c: LlmCallStart, redactor: Redactor): TraceValues {
  return {
    columns: RUNNING_COLUMNS,
    values: [
      c.endpoint_name,
      redactor.text(c.base_url),
      c.model,
      c.schema_delivery,
      redactor.jsonText(storedBody(c)),
      '{}',
      0,
      0,
      '[]',
    ],
  };
}

export interface LlmCallEnd {
  http_status: number | null;
  response_headers: Record<string, string>;
  normalized_text: string | null;
  stream: StreamState;
  artifacts: Array<{ kind: string; content: unknown }>;
  /**
   * What the invocation row's own columns are finished with by the same statement: `raw_text`
   * equal to its `response_text` is not stored again.
   */
  recorded: RecordedResponse;
  /** The `parsed_output` artifact's content is the invocation's recorded `response_json`. */
  output_recorded: boolean;
}

/** How a `parsed_output` artifact whose content is the invocation's `response_json` is stored. */
export const CONTENT_IN_RESPONSE_JSON = 'response_json';

/**
 * `llm_response_headers` of a finished call whose headers are its invocation's (JSON `null`,
 * which a headers object never serializes to): the reader puts them back.
 */
export const HEADERS_IN_INVOCATION = 'null';

/**
 * Chunk `i` as stored (`chunk-codec.ts`: after chunk `i - 1`, redacted), encoded once per call and
 * kept; the chunks before it are encoded first, in order, where they are not yet.
 */
export function encodeChunk(chunks: StreamChunk[], i: number, redactor: Redactor): string {
  const known = chunks[i]!.stored;
  if (known !== undefined) return known;
  let j = i;
  while (j > 0 && chunks[j - 1]!.stored === undefined) j--;
  for (; j <= i; j++) {
    const c = chunks[j]!;
    c.clean = redactor.text(c.windowed ?? c.data);
    c.stored = chunkAfter(j === 0 ? null : chunks[j - 1]!.clean!, c.offset_ms, c.clean);
  }
  return chunks[i]!.stored!;
}

/** Chunks `from` to `to` as one stored array (its first element whole: it decodes alone). */
function chunksJson(chunks: StreamChunk[], from: number, to: number, redactor: Redactor): string {
  if (to === from) return '[]';
  encodeChunk(chunks, to - 1, redactor);
  const first = chunks[from]!;
  let out = `[${from === 0 ? first.stored! : wholeChunk(first.offset_ms, first.clean!)}`;
  for (let i = from + 1; i < to; i++) out += `,${chunks[i]!.stored!}`;
  return `${out}]`;
}

/**
 * Persists the chunks that arrived since the last batch (one `llm_call_chunks` row) and the
 * running call's `chunk_count`, while the call streams. Each chunk is written once here and
 * once more in the finish: the cost stays proportional to the stream. A chunk whose text a
 * redaction window still holds characters of waits for the next batch (`settledChunks`).
 */
export async function appendChunkBatch(
  q: Queryable,
  ids: { source_invocation_id: string; llm_call_id: string },
  s: StreamState,
  redactor: Redactor,
): Promise<void> {
  const from = s.persisted;
  const to = settledChunks(s);
  if (to <= from) return;
  // Taken before the first await: chunks arriving meanwhile go to the next batch.
  s.persisted = to;
  try {
    await q.run('INSERT INTO llm_call_chunks (llm_call_id, first_seq, chunks_json) VALUES (?, ?, ?)', [
      ids.llm_call_id,
      from + 1,
      chunksJson(s.chunks, from, to, redactor),
    ]);
    await q.run(
      `UPDATE source_invocations SET llm_chunk_count = ?, llm_first_chunk_at = ?
       WHERE source_invocation_id = ? AND status = 'running'`,
      [to, s.firstChunkAt, ids.source_invocation_id],
    );
  } catch (err) {
    // The transaction rolls back: the next batch starts where this one did, leaving no gap.
    s.persisted = from;
    throw err;
  }
}

function usageNumber(usage: Record<string, unknown> | null, key: string): number | null {
  const v = usage?.[key];
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

/** The finished row's LLM columns (status, failure and times are the invocation's own). */
export function llmFinishedColumns(e: LlmCallEnd, redactor: Redactor): TraceValues {
  const s = e.stream;
  // The output is stored once: where it equals what the invocation row holds, NULL (or a
  // reference) here, and the reader puts it back. A value the invocation row is finished from
  // is known equal without redacting and encoding it again (null below: in the invocation).
  const r = e.recorded;
  const raw = r.from.response_text === s.rawText ? null : redactor.text(s.rawText);
  const headers =
    r.from.response_headers === e.response_headers ? null : redactor.headersText(e.response_headers);
  const normalizedIsRaw = e.normalized_text !== null && e.normalized_text === s.rawText;
  const artifacts = e.artifacts.map((a, n) =>
    a.kind === 'parsed_output' && e.output_recorded
      ? { seq: n + 1, kind: a.kind, content_in: CONTENT_IN_RESPONSE_JSON }
      : { seq: n + 1, kind: a.kind, content: a.content },
  );
  return {
    columns: FINISHED_COLUMNS,
    values: [
      e.http_status,
      headers === null || r.response_headers === headers ? HEADERS_IN_INVOCATION : headers,
      raw === null || r.response_text === raw ? null : raw,
      e.normalized_text === null || normalizedIsRaw ? null : redactor.text(e.normalized_text),
      normalizedIsRaw ? 1 : 0,
      s.finishReason,
      usageNumber(s.usage, 'prompt_tokens'),
      usageNumber(s.usage, 'completion_tokens'),
      usageNumber(s.usage, 'total_tokens'),
      s.usage ? redactor.jsonText(s.usage) : null,
      s.chunks.length,
      chunksJson(s.chunks, 0, s.chunks.length, redactor),
      redactor.jsonText(artifacts),
      s.firstChunkAt,
    ],
  };
}

/** After the finish wrote the whole stream into `llm_chunks_json`: the batches written while it streamed go. */
export function dropChunkBatches(llmCallId: string, s: StreamState): TraceStatement | null {
  return s.persisted > 0
    ? { sql: 'DELETE FROM llm_call_chunks WHERE llm_call_id = ?', params: [llmCallId] }
    : null;
}
