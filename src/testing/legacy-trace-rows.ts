/**
 * Source invocations with their LLM calls as written before migration 345 (an `llm_calls` table
 * of its own, ids of its own), for the tests of the migrations that carry them.
 */
import { uuidv7 } from '../core/ids.ts';
import type { Store } from '../store/store.ts';

export interface LegacyCall {
  source_invocation_id: string;
  llm_call_id: string;
}

const INVOCATION = `INSERT INTO source_invocations (source_invocation_id, attempt_id, world_slug, attempted_turn,
  invocation_seq, source_hash, interface_name, invocation_kind, parent_source_invocation_id, llm_call_id,
  model_output_kind, status, failure_class, failure_message, started_at, ended_at, duration_ms, request_json,
  response_json, response_text, response_headers, http_status, validation_status, metadata, owner_process_id)
  VALUES (?, ?, 'park', 1, ?, ?, 'llm_chat_completions', 'llm_generation', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,
  '{"model":"scripted-1"}', ?)`;

const LLM_CALL = `INSERT INTO llm_calls (llm_call_id, source_invocation_id, attempt_id, model_output_kind, endpoint_name,
  base_url, model, schema_delivery, request_json, status, failure_class, failure_message, http_status,
  response_headers, raw_text, normalized_text, finish_reason, prompt_tokens, completion_tokens, total_tokens,
  usage_json, chunk_count, chunks_json, artifacts_json, started_at, first_chunk_at, ended_at, duration_ms,
  normalized_is_raw) VALUES (?, ?, 'a1', ?, 'default', 'http://127.0.0.1:1/v1', 'scripted-1', 'response_format',
  ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

const REPLY = '{"kind":"final_patch","patch":{"narration":"Bob waits."}}';
const REQUEST = '{"messages":[{"role":"user","content":"Act."}]}';
const HEADERS = '{"content-type":"text/event-stream"}';
const BODY = (messages: string) =>
  `{"model":"scripted-1","messages":${messages},"stream":true,"response_format":{"type":"json_schema"}}`;
const CHUNKS = '[[3,"{\\"choices\\":[{\\"delta\\":{\\"content\\":\\"{}\\"}}]}"],[4,"[DONE]"]]';

/**
 * Writes four calls of attempt `a1` as the code before migration 345 did: one stored the output
 * once (migration 343's references), one with every value explicit (before 343), one failed, and
 * one left `running` by `owner` with a chunk batch persisted while it streamed.
 */
export async function writeLegacyCalls(
  store: Store,
  sourceHash: string,
  owner: string,
): Promise<LegacyCall[]> {
  const calls: LegacyCall[] = [];
  const explicit = `[{"seq":1,"kind":"parsed_output","content":${REPLY}}]`;
  const once = '[{"seq":1,"kind":"parsed_output","content_in":"response_json"}]';
  const failedArtifacts = '[{"seq":1,"kind":"upstream_error","content":{"http_status":503,"body":"busy"}}]';
  const rows = [
    { status: 'succeeded', once: true },
    { status: 'succeeded', once: false },
    { status: 'failed', once: false },
    { status: 'running', once: false },
  ];
  for (const [i, r] of rows.entries()) {
    const id = uuidv7();
    const llm = uuidv7();
    const t = 1_700_000_000_000 + i * 1000;
    const done = r.status !== 'running';
    const ok = r.status === 'succeeded';
    const failure = r.status === 'failed' ? 'http_status' : null;
    const message = failure ? 'LLM call answered HTTP 503' : null;
    await store.run(INVOCATION, [
      id,
      'a1',
      i + 1,
      sourceHash,
      i === 0 ? null : calls[0]!.source_invocation_id,
      llm,
      ok ? 'final_patch' : null,
      r.status,
      failure,
      message,
      t,
      done ? t + 40 : null,
      done ? 40 : null,
      REQUEST,
      ok ? REPLY : null,
      ok ? REPLY : failure ? 'busy' : null,
      done ? HEADERS : '{}',
      done ? (ok ? 200 : 503) : null,
      ok ? 'valid' : null,
      owner,
    ]);
    await store.run(LLM_CALL, [
      llm,
      id,
      ok ? 'final_patch' : null,
      BODY(r.once ? 'null' : '[{"role":"user","content":"Act."}]'),
      r.status,
      failure,
      message,
      done ? (ok ? 200 : 503) : null,
      !done ? '{}' : r.once ? 'null' : HEADERS,
      ok && !r.once ? REPLY : failure ? '' : null,
      ok && !r.once ? REPLY : null,
      done ? 'stop' : null,
      ok ? 10 : null,
      ok ? 4 : null,
      ok ? 14 : null,
      ok ? '{"prompt_tokens":10,"completion_tokens":4,"total_tokens":14}' : null,
      done ? 2 : 1,
      done ? CHUNKS : null,
      ok ? (r.once ? once : explicit) : failure ? failedArtifacts : '[]',
      t,
      t + 3,
      done ? t + 40 : null,
      done ? 40 : null,
      r.once ? 1 : 0,
    ]);
    if (!done) {
      await store.run('INSERT INTO llm_call_chunks (llm_call_id, first_seq, chunks_json) VALUES (?, 1, ?)', [
        llm,
        '[[3,"{\\"choices\\":[{\\"delta\\":{\\"content\\":\\"{\\"}}]}"]]',
      ]);
    }
    calls.push({ source_invocation_id: id, llm_call_id: llm });
  }
  return calls;
}
