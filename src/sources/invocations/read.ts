/**
 * Reading the trace: one invocation, a filtered page of invocations (bounded, newest first,
 * keyset-paginated by id), and one LLM call with its chunks and artifacts.
 */
import { invalidInput, NoemaError } from '../../core/errors.ts';
import type { Queryable, Row, SqlValue } from '../../store/store.ts';

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

export async function getSourceInvocation(q: Queryable, id: string): Promise<SourceInvocationRecord> {
  const row = await q.get('SELECT * FROM source_invocations WHERE source_invocation_id = ?', [id]);
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
function requestMessages(requestJson: unknown): unknown {
  if (typeof requestJson !== 'string') return [];
  return (JSON.parse(requestJson) as { messages?: unknown }).messages ?? [];
}

/** The batches a call persisted while streaming: all there is of a call that never finished. */
async function persistedChunks(q: Queryable, id: string): Promise<Array<[number, string]>> {
  const rows = await q.all<{ chunks_json: string }>(
    'SELECT chunks_json FROM llm_call_chunks WHERE llm_call_id = ? ORDER BY first_seq',
    [id],
  );
  return rows.flatMap((r) => JSON.parse(r.chunks_json) as Array<[number, string]>);
}

export async function getLlmCall(
  q: Queryable,
  id: string,
  options: { maxChunks?: number } = {},
): Promise<Record<string, unknown>> {
  const row = await q.get('SELECT * FROM llm_calls WHERE llm_call_id = ?', [id]);
  if (!row) throw new NoemaError('UNKNOWN_LLM_CALL', `no LLM call ${id}`, { details: { llm_call_id: id } });
  const maxChunks = Math.min(options.maxChunks ?? MAX_CHUNKS, MAX_CHUNKS);
  const { chunks_json, artifacts_json, ...call } = row;
  const pairs =
    typeof chunks_json === 'string'
      ? (JSON.parse(chunks_json) as Array<[number, string]>)
      : await persistedChunks(q, id);
  return {
    ...decode(call),
    request_messages: requestMessages(call.request_json),
    chunks: pairs.slice(0, maxChunks).map(([offset_ms, data], i) => ({ seq: i + 1, offset_ms, data })),
    chunks_truncated: pairs.length > maxChunks,
    artifacts: JSON.parse(String(artifacts_json ?? '[]')) as unknown[],
  };
}
