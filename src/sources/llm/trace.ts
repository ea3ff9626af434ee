/**
 * The rich LLM trace (`llm_calls`, `llm_call_chunks`, `llm_call_artifacts`): started in the
 * transaction that records the running invocation, finished in the one that ends it.
 */
import type { Queryable } from '../../store/store.ts';
import type { Redactor } from '../redact.ts';
import type { InvocationLinks } from '../source.ts';
import type { StreamChunk, StreamState } from './stream.ts';

export interface LlmCallStart {
  llm_call_id: string;
  source_invocation_id: string;
  links: InvocationLinks;
  endpoint_name: string;
  base_url: string;
  model: string;
  schema_delivery: string;
  request_messages: unknown;
  request_json: unknown;
  started_at: number;
}

export async function insertLlmCall(q: Queryable, c: LlmCallStart, redactor: Redactor): Promise<void> {
  const l = c.links;
  await q.run(
    `INSERT INTO llm_calls (llm_call_id, source_invocation_id, run_id, attempt_id, workflow_hash, workflow_node_id,
       workflow_subject_entity_id, logical_generation_attempt, tool_loop_round, endpoint_name, base_url, model,
       schema_delivery, request_messages, request_json, status, started_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'running', ?)`,
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
      JSON.stringify(redactor.json(c.request_messages)),
      JSON.stringify(redactor.json(c.request_json)),
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
}

const CHUNK_BATCH = 32;

async function insertChunks(
  q: Queryable,
  id: string,
  chunks: StreamChunk[],
  redactor: Redactor,
): Promise<void> {
  for (let i = 0; i < chunks.length; i += CHUNK_BATCH) {
    const batch = chunks.slice(i, i + CHUNK_BATCH);
    const values = batch.map(() => '(?, ?, ?, ?)').join(', ');
    const params = batch.flatMap((c) => [id, c.seq, c.offset_ms, redactor.text(c.data)]);
    await q.run(`INSERT INTO llm_call_chunks (llm_call_id, seq, offset_ms, data) VALUES ${values}`, params);
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
  await q.run(
    `UPDATE llm_calls SET status = ?, failure_class = ?, failure_message = ?, http_status = ?, response_headers = ?,
       raw_text = ?, normalized_text = ?, finish_reason = ?, prompt_tokens = ?, completion_tokens = ?, total_tokens = ?,
       usage_json = ?, chunk_count = ?, first_chunk_at = ?, ended_at = ?, duration_ms = ?
     WHERE llm_call_id = ? AND status = 'running'`,
    [
      e.status,
      e.failure_class,
      e.failure_message === null ? null : redactor.text(e.failure_message),
      e.http_status,
      JSON.stringify(redactor.headers(e.response_headers)),
      redactor.text(s.rawText),
      e.normalized_text === null ? null : redactor.text(e.normalized_text),
      s.finishReason,
      usageNumber(s.usage, 'prompt_tokens'),
      usageNumber(s.usage, 'completion_tokens'),
      usageNumber(s.usage, 'total_tokens'),
      s.usage ? JSON.stringify(redactor.json(s.usage)) : null,
      s.chunks.length,
      s.firstChunkAt,
      e.ended_at,
      Math.max(0, e.ended_at - e.started_at),
      id,
    ],
  );
  if (s.chunks.length > 0) await insertChunks(q, id, s.chunks, redactor);
  let seq = 0;
  for (const a of e.artifacts) {
    seq += 1;
    await q.run(
      'INSERT INTO llm_call_artifacts (llm_call_id, seq, kind, content, created_at) VALUES (?, ?, ?, ?, ?)',
      [id, seq, a.kind, JSON.stringify(redactor.json(a.content)), e.ended_at],
    );
  }
}
