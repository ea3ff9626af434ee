/**
 * Reading the trace: one invocation, a filtered page of invocations (bounded, newest first,
 * keyset-paginated by id), and one LLM call with its chunks and artifacts.
 */
import { invalidInput, NoemaError } from '../../core/errors.ts';
import type { Queryable, Row, SqlValue } from '../../store/store.ts';
import { getJsonSchema } from '../documents.ts';
import { decodeChunks } from '../llm/chunk-codec.ts';
import { CONTENT_IN_RESPONSE_JSON, HEADERS_IN_INVOCATION, wholeBody } from '../llm/trace.ts';
import { tokensOf } from '../llm/usage.ts';

const JSON_COLUMNS = ['request_json', 'response_json', 'response_headers', 'metadata', 'usage_json'];
const TIME_COLUMNS = ['started_at', 'ended_at', 'first_chunk_at'];

/** A stored row as JSON: JSON columns decoded, timestamps as ISO strings. */
function decode(row: Row): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) {
    if (JSON_COLUMNS.includes(k) && typeof v === 'string') out[k] = JSON.parse(v);
    else if (TIME_COLUMNS.includes(k) && v !== null && v !== undefined)
      out[k] = new Date(Number(v)).toISOString();
    else out[k] = typeof v === 'bigint' ? Number(v) : v;
  }
  return out;
}

export type SourceInvocationRecord = Record<string, unknown> & {
  source_invocation_id: string;
  status: string;
  failure_class: string | null;
};

/** The invocation's own columns (the row also holds its LLM trace, read as `llm_calls`). */
const INVOCATION_COLUMNS = `source_invocation_id, run_id, attempt_id, contract_id, world_slug, attempted_turn,
  invocation_seq, workflow_hash, workflow_node_id, workflow_subject_entity_id, source_hash, interface_name,
  invocation_kind, ambient_source_id, tool_name, parent_source_invocation_id, input_schema_hash,
  output_schema_hash, llm_call_id, logical_generation_attempt, tool_loop_round, model_output_kind, status,
  failure_class, failure_message, started_at, ended_at, duration_ms, request_json, response_json,
  response_text, response_headers, http_status, validation_status, metadata, owner_process_id`;

export async function getSourceInvocation(q: Queryable, id: string): Promise<SourceInvocationRecord> {
  const row = await q.get(
    `SELECT ${INVOCATION_COLUMNS} FROM source_invocations WHERE source_invocation_id = ?`,
    [id],
  );
  if (!row) {
    throw new NoemaError('UNKNOWN_SOURCE_INVOCATION', `no source invocation ${id}`, {
      details: { source_invocation_id: id },
    });
  }
  return decode(row) as SourceInvocationRecord;
}

export interface InvocationFilter {
  run_id?: string;
  attempt_id?: string;
  world_slug?: string;
  invocation_kind?: string;
  status?: string;
  source_hash?: string;
  interface_name?: string;
  output_schema_hash?: string;
  input_schema_hash?: string;
  /** Return rows with ids below this one (the previous page's `next_cursor`). */
  cursor?: string;
  limit?: number;
}

export const MAX_PAGE = 200;

const SUMMARY_COLUMNS = `source_invocation_id, run_id, attempt_id, contract_id, world_slug, attempted_turn, invocation_seq,
  workflow_hash, workflow_node_id, workflow_subject_entity_id, source_hash, interface_name, invocation_kind,
  ambient_source_id, tool_name, parent_source_invocation_id, llm_call_id, status, failure_class, failure_message,
  started_at, ended_at, duration_ms, http_status, validation_status, model_output_kind`;

const FILTERS: Array<keyof InvocationFilter> = [
  'run_id',
  'attempt_id',
  'world_slug',
  'invocation_kind',
  'status',
  'source_hash',
  'interface_name',
  'output_schema_hash',
  'input_schema_hash',
];

export async function listSourceInvocations(
  q: Queryable,
  filter: InvocationFilter,
): Promise<{ items: Record<string, unknown>[]; next_cursor: string | null; truncated: boolean }> {
  const limit = filter.limit ?? 50;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE) {
    throw invalidInput(`limit must be an integer from 1 to ${MAX_PAGE}`, { limit });
  }
  const where: string[] = [];
  const params: SqlValue[] = [];
  for (const key of FILTERS) {
    const v = filter[key];
    if (v !== undefined) {
      where.push(`${key} = ?`);
      params.push(v as string);
    }
  }
  if (filter.cursor !== undefined) {
    where.push('source_invocation_id < ?');
    params.push(filter.cursor);
  }
  const rows = await q.all(
    `SELECT ${SUMMARY_COLUMNS} FROM source_invocations ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
     ORDER BY source_invocation_id DESC LIMIT ?`,
    [...params, limit + 1],
  );
  const more = rows.length > limit;
  const items = rows.slice(0, limit).map(decode);
  return { items, next_cursor: more ? String(items.at(-1)?.source_invocation_id) : null, truncated: more };
}

export const MAX_CHUNKS = 5_000;

/** The messages actually sent: the wire body's `messages` (including a prompt-only schema instruction). */
function requestMessages(body: unknown): unknown {
  return (body as { messages?: unknown } | null)?.messages ?? [];
}

type LlmRow = Row & {
  chunks_json: unknown;
  artifacts_json: unknown;
  normalized_is_raw: unknown;
  inv_request_json: unknown;
  inv_response_json: unknown;
  inv_response_text: unknown;
  inv_response_headers: unknown;
  inv_output_schema_hash: unknown;
};

// The output, the request messages and the response headers are stored once, on the invocation
// (see migration 343), and the trace is a part of that row (migration 345): the record is read
// back whole, as it was sent and seen.
const LLM_CALL_COLUMNS = `llm_call_id, source_invocation_id, run_id, attempt_id, workflow_hash, workflow_node_id,
  workflow_subject_entity_id, logical_generation_attempt, tool_loop_round, model_output_kind,
  llm_endpoint_name AS endpoint_name, llm_base_url AS base_url, llm_model AS model,
  llm_schema_delivery AS schema_delivery, llm_request_json AS request_json, status, failure_class, failure_message,
  llm_http_status AS http_status, llm_response_headers AS response_headers, llm_raw_text AS raw_text,
  llm_normalized_text AS normalized_text, llm_finish_reason AS finish_reason, llm_prompt_tokens AS prompt_tokens,
  llm_completion_tokens AS completion_tokens, llm_total_tokens AS total_tokens, llm_usage_json AS usage_json,
  llm_chunk_count AS chunk_count, llm_chunks_json AS chunks_json, llm_artifacts_json AS artifacts_json, started_at,
  llm_first_chunk_at AS first_chunk_at, ended_at, duration_ms, llm_normalized_is_raw AS normalized_is_raw,
  request_json AS inv_request_json, response_json AS inv_response_json, response_text AS inv_response_text,
  response_headers AS inv_response_headers, output_schema_hash AS inv_output_schema_hash`;

/** A call made since migration 345: its id is its invocation's. */
const LLM_CALL = `SELECT ${LLM_CALL_COLUMNS} FROM source_invocations WHERE source_invocation_id = ? AND llm_call_id = ?`;
/** A call recorded before, with an id of its own (through the index only those rows enter). */
const LLM_CALL_BEFORE_345 = `SELECT ${LLM_CALL_COLUMNS} FROM source_invocations
  WHERE llm_call_id = ? AND llm_call_id <> source_invocation_id`;

/**
 * The wire body, whole: `messages` from the invocation's request and the result schema from
 * `json_schemas` where they are stored only there (`wholeBody`).
 */
async function requestBody(
  q: Queryable,
  stored: unknown,
  invocationRequest: unknown,
  schemaHash: unknown,
): Promise<unknown> {
  if (typeof stored !== 'string') return stored;
  const body = JSON.parse(stored) as Record<string, unknown> | null;
  if (!body || typeof body !== 'object') return body;
  return wholeBody(body, {
    messages: () =>
      typeof invocationRequest === 'string'
        ? ((JSON.parse(invocationRequest) as { messages?: unknown }).messages ?? null)
        : null,
    // A body leaves its schema out only for a row that names it (`output_schema_hash`).
    schema: async () => (typeof schemaHash === 'string' ? (await getJsonSchema(q, schemaHash)).schema : null),
  });
}

type StoredArtifact = { seq: number; kind: string; content?: unknown; content_in?: string };

function artifactsOf(stored: unknown, invocationResponse: unknown): unknown[] {
  const artifacts = JSON.parse(String(stored ?? '[]')) as StoredArtifact[];
  return artifacts.map((a) =>
    a.content_in === CONTENT_IN_RESPONSE_JSON
      ? {
          seq: a.seq,
          kind: a.kind,
          content: typeof invocationResponse === 'string' ? JSON.parse(invocationResponse) : null,
        }
      : a,
  );
}

/** The batches a call persisted while streaming: all there is of a call that never finished. */
async function persistedChunks(q: Queryable, id: string): Promise<Array<[number, string]>> {
  const rows = await q.all<{ chunks_json: string }>(
    'SELECT chunks_json FROM llm_call_chunks WHERE llm_call_id = ? ORDER BY first_seq',
    [id],
  );
  return rows.flatMap((r) => decodeChunks(r.chunks_json, id));
}

export async function getLlmCall(
  q: Queryable,
  id: string,
  options: { maxChunks?: number } = {},
): Promise<Record<string, unknown>> {
  const row = (await q.get<LlmRow>(LLM_CALL, [id, id])) ?? (await q.get<LlmRow>(LLM_CALL_BEFORE_345, [id]));
  if (!row) throw new NoemaError('UNKNOWN_LLM_CALL', `no LLM call ${id}`, { details: { llm_call_id: id } });
  const maxChunks = Math.min(options.maxChunks ?? MAX_CHUNKS, MAX_CHUNKS);
  const {
    chunks_json,
    artifacts_json,
    normalized_is_raw,
    inv_request_json,
    inv_response_json,
    inv_response_text,
    inv_response_headers,
    inv_output_schema_hash,
    ...call
  } = row;
  const pairs =
    typeof chunks_json === 'string' ? decodeChunks(chunks_json, id) : await persistedChunks(q, id);
  // NULL raw_text on a finished call is the invocation's response_text (on a running or
  // interrupted one both are NULL).
  const raw_text = call.raw_text ?? inv_response_text ?? null;
  const request_json = await requestBody(q, call.request_json, inv_request_json, inv_output_schema_hash);
  const out: Record<string, unknown> = {
    ...decode({
      ...call,
      raw_text,
      normalized_text: Number(normalized_is_raw) === 1 ? raw_text : call.normalized_text,
      response_headers:
        call.response_headers === HEADERS_IN_INVOCATION ? inv_response_headers : call.response_headers,
      request_json: null,
    }),
    request_json,
    request_messages: requestMessages(request_json),
    chunks: pairs.slice(0, maxChunks).map(([offset_ms, data], i) => ({ seq: i + 1, offset_ms, data })),
    chunks_truncated: pairs.length > maxChunks,
    artifacts: artifactsOf(artifacts_json, inv_response_json),
  };
  // Tokens as the provider reported them (`not_reported` names those it did not).
  out.tokens = tokensOf((out.usage_json ?? null) as Record<string, unknown> | null);
  return out;
}
