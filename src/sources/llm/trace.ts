/**
 * The rich LLM trace (`llm_calls` with its chunks and artifacts): started in the
 * transaction that records the running invocation, finished in the one that ends it.
 */
import type { Queryable } from '../../store/store.ts';
import type { Redactor } from '../redact.ts';
import type { InvocationLinks, RecordedResponse } from '../source.ts';
import type { StreamChunk, StreamState } from './stream.ts';

export interface LlmCallStart {
  llm_call_id: string;
  source_invocation_id: string;
  links: InvocationLinks;
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
  started_at: number;
}

export async function insertLlmCall(q: Queryable, c: LlmCallStart, redactor: Redactor): Promise<void> {
  const l = c.links;
  await q.run(
    `INSERT INTO llm_calls (llm_call_id, source_invocation_id, run_id, attempt_id, workflow_hash, workflow_node_id,
       workflow_subject_entity_id, logical_generation_attempt, tool_loop_round, endpoint_name, base_url, model,
       schema_delivery, request_json, status, started_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'running', ?)`,
    [
      c.llm_call_id,
      c.source_invocation_id,
      l.run_id ?? null,
      l.attempt_id ?? null,
      l.workflow_hash ?? null,
      l.workflow_node_id ?? null,
      l.workflow_subject_entity_id ?? null,
      l.logical_generation_attempt ?? null,
      l.tool_loop_round ?? null,
      c.endpoint_name,
      redactor.text(c.base_url),
      c.model,
      c.schema_delivery,
      redactor.jsonText(c.messages_in_request ? { ...c.request_json, messages: null } : c.request_json),
      c.started_at,
    ],
  );
}

export interface LlmCallEnd {
  status: 'succeeded' | 'failed';
  failure_class: string | null;
  failure_message: string | null;
  http_status: number | null;
  response_headers: Record<string, string>;
  normalized_text: string | null;
  stream: StreamState;
  started_at: number;
  ended_at: number;
  artifacts: Array<{ kind: string; content: unknown }>;
  /**
   * What the invocation row finished with in this transaction (null if it did not): `raw_text`
   * equal to its `response_text` is not stored again.
   */
  recorded: RecordedResponse | null;
  /** The `parsed_output` artifact's content is the invocation's recorded `response_json`. */
  output_recorded: boolean;
}

/** How a `parsed_output` artifact whose content is the invocation's `response_json` is stored. */
export const CONTENT_IN_RESPONSE_JSON = 'response_json';

/**
 * `llm_calls.response_headers` of a finished call whose headers are its invocation's (JSON
 * `null`, which a headers object never serializes to): the reader puts them back.
 */
export const HEADERS_IN_INVOCATION = 'null';

/** One chunk as stored, `[offset_ms, data]` JSON, redacted; encoded once per call and kept. */
export function encodeChunk(c: StreamChunk, redactor: Redactor): string {
  c.stored ??= `[${JSON.stringify(c.offset_ms)},${JSON.stringify(redactor.text(c.data))}]`;
  return c.stored;
}

/**
 * Chunks as stored: `[offset_ms, data]` pairs in arrival order (seq is the position + 1), the
 * text `JSON.stringify` gives for that array.
 */
function chunksJson(chunks: StreamChunk[], from: number, to: number, redactor: Redactor): string {
  let out = '[';
  for (let i = from; i < to; i++) {
    const stored = encodeChunk(chunks[i]!, redactor);
    out += i === from ? stored : `,${stored}`;
  }
  return `${out}]`;
}

/**
 * Persists the chunks that arrived since the last batch (one `llm_call_chunks` row) and the
 * running call's `chunk_count`, while the call streams. Each chunk is written once here and
 * once more in the finish: the cost stays proportional to the stream.
 */
export async function appendChunkBatch(
  q: Queryable,
  id: string,
  s: StreamState,
  redactor: Redactor,
): Promise<void> {
  const from = s.persisted;
  const to = s.chunks.length;
  if (to === from) return;
  // Taken before the first await: chunks arriving meanwhile go to the next batch.
  s.persisted = to;
  try {
    await q.run('INSERT INTO llm_call_chunks (llm_call_id, first_seq, chunks_json) VALUES (?, ?, ?)', [
      id,
      from + 1,
      chunksJson(s.chunks, from, to, redactor),
    ]);
    await q.run(
      `UPDATE llm_calls SET chunk_count = ?, first_chunk_at = ? WHERE llm_call_id = ? AND status = 'running'`,
      [to, s.firstChunkAt, id],
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

export async function finishLlmCall(
  q: Queryable,
  id: string,
  e: LlmCallEnd,
  redactor: Redactor,
): Promise<void> {
  const s = e.stream;
  // The whole stream goes to chunks_json below: the batches written while it streamed go.
  if (s.persisted > 0) await q.run('DELETE FROM llm_call_chunks WHERE llm_call_id = ?', [id]);
  // The output is stored once: where it equals what the invocation row holds, NULL (or a
  // reference) here, and the reader puts it back. A value the invocation row was finished from
  // is known equal without redacting and encoding it again (null below: in the invocation).
  const r = e.recorded;
  const raw = r !== null && r.from.response_text === s.rawText ? null : redactor.text(s.rawText);
  const headers =
    r !== null && r.from.response_headers === e.response_headers
      ? null
      : JSON.stringify(redactor.headers(e.response_headers));
  const normalizedIsRaw = e.normalized_text !== null && e.normalized_text === s.rawText;
  const artifacts = e.artifacts.map((a, n) =>
    a.kind === 'parsed_output' && e.output_recorded
      ? { seq: n + 1, kind: a.kind, content_in: CONTENT_IN_RESPONSE_JSON }
      : { seq: n + 1, kind: a.kind, content: a.content },
  );
  await q.run(
    `UPDATE llm_calls SET status = ?, failure_class = ?, failure_message = ?, http_status = ?, response_headers = ?,
       raw_text = ?, normalized_text = ?, normalized_is_raw = ?, finish_reason = ?, prompt_tokens = ?, completion_tokens = ?,
       total_tokens = ?, usage_json = ?, chunk_count = ?, chunks_json = ?, artifacts_json = ?, first_chunk_at = ?, ended_at = ?,
       duration_ms = ?
     WHERE llm_call_id = ? AND status = 'running'`,
    [
      e.status,
      e.failure_class,
      e.failure_message === null ? null : redactor.text(e.failure_message),
      e.http_status,
      headers === null || r?.response_headers === headers ? HEADERS_IN_INVOCATION : headers,
      raw === null || r?.response_text === raw ? null : raw,
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
      e.ended_at,
      Math.max(0, e.ended_at - e.started_at),
      id,
    ],
  );
}
