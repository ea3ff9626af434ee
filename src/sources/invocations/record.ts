/**
 * Writes `source_invocations` rows: the `running` row before any byte is sent, then its one
 * terminal update. Every value passes through the call's Redactor on its way in.
 */
import type { Queryable, SqlValue, Transaction } from '../../store/store.ts';
import type { Redactor } from '../redact.ts';
import type { InvocationKind, InvocationLinks, RecordedResponse, SourceResponse } from '../source.ts';

export interface RunningInvocation {
  source_invocation_id: string;
  source_hash: string;
  interface_name: string;
  invocation_kind: InvocationKind;
  links: InvocationLinks;
  input_schema_hash: string | null;
  output_schema_hash: string | null;
  llm_call_id: string | null;
  request_json: unknown;
  metadata: Record<string, unknown>;
  started_at: number;
  owner_process_id: string;
}

/** The next `invocation_seq` in the attempt (or run); 1 for a call outside both. */
async function allocateSeq(tx: Transaction, links: InvocationLinks): Promise<number> {
  if (links.invocation_seq != null) return links.invocation_seq;
  const [column, id] = links.attempt_id
    ? ['attempt_id', links.attempt_id]
    : links.run_id
      ? ['run_id', links.run_id]
      : [];
  if (!column || !id) return 1;
  await tx.lockKey(`source_invocations:${column}:${id}`);
  const scope = column === 'run_id' ? ' AND attempt_id IS NULL' : '';
  const row = await tx.get<{ n: number | null }>(
    `SELECT MAX(invocation_seq) AS n FROM source_invocations WHERE ${column} = ?${scope}`,
    [id],
  );
  return Number(row?.n ?? 0) + 1;
}

const INSERT_RUNNING = `INSERT INTO source_invocations (
  source_invocation_id, run_id, attempt_id, contract_id, world_slug, attempted_turn, invocation_seq,
  workflow_hash, workflow_node_id, workflow_subject_entity_id, source_hash, interface_name, invocation_kind,
  ambient_source_id, tool_name, parent_source_invocation_id, input_schema_hash, output_schema_hash, llm_call_id,
  logical_generation_attempt, tool_loop_round, status, started_at, request_json, response_headers, metadata,
  owner_process_id
) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'running', ?, ?, '{}', ?, ?)`;

export async function insertRunning(
  tx: Transaction,
  inv: RunningInvocation,
  redactor: Redactor,
): Promise<number> {
  const l = inv.links;
  const seq = await allocateSeq(tx, l);
  const params: SqlValue[] = [
    inv.source_invocation_id,
    l.run_id ?? null,
    l.attempt_id ?? null,
    l.contract_id ?? null,
    l.world_slug ?? null,
    l.attempted_turn ?? null,
    seq,
    l.workflow_hash ?? null,
    l.workflow_node_id ?? null,
    l.workflow_subject_entity_id ?? null,
    inv.source_hash,
    inv.interface_name,
    inv.invocation_kind,
    l.ambient_source_id ?? null,
    l.tool_name ?? null,
    l.parent_source_invocation_id ?? null,
    inv.input_schema_hash,
    inv.output_schema_hash,
    inv.llm_call_id,
    l.logical_generation_attempt ?? null,
    l.tool_loop_round ?? null,
    inv.started_at,
    redactor.jsonText(inv.request_json ?? null),
    redactor.jsonText(inv.metadata),
    inv.owner_process_id,
  ];
  await tx.run(INSERT_RUNNING, params);
  return seq;
}

export interface InvocationOutcomeRow extends SourceResponse {
  status: 'succeeded' | 'failed';
  failure_class: string | null;
  failure_message: string | null;
  ended_at: number;
  started_at: number;
  validation_status: string | null;
}

// Only a running row is finished: recovery may have marked it interrupted meanwhile, and the
// first terminal state wins.
const FINISH = `UPDATE source_invocations SET status = ?, failure_class = ?, failure_message = ?, ended_at = ?,
  duration_ms = ?, response_json = ?, response_text = ?, response_headers = ?, http_status = ?, validation_status = ?,
  model_output_kind = ? WHERE source_invocation_id = ? AND status = 'running'`;

/** Finishes a running row; null when it was not running any more (recovery interrupted it). */
export async function finishInvocation(
  q: Queryable,
  id: string,
  o: InvocationOutcomeRow,
  redactor: Redactor,
): Promise<RecordedResponse | null> {
  // The output's one JSON encoding: the same pass tells whether it needs redacting.
  const json = o.response_json === undefined ? null : redactor.jsonTextChecked(o.response_json);
  const responseText = o.response_text == null ? null : redactor.text(o.response_text);
  const headers = JSON.stringify(redactor.headers(o.response_headers ?? {}));
  const r = await q.run(FINISH, [
    o.status,
    o.failure_class,
    o.failure_message === null ? null : redactor.text(o.failure_message),
    o.ended_at,
    Math.max(0, o.ended_at - o.started_at),
    json === null ? null : json.text,
    responseText,
    headers,
    o.http_status ?? null,
    o.validation_status,
    o.model_output_kind ?? null,
    id,
  ]);
  if (r.changes !== 1) return null;
  return {
    response_text: responseText,
    has_response_json: json !== null,
    response_json_clean: json?.clean ?? true,
    response_headers: headers,
    from: { response_text: o.response_text ?? null, response_headers: o.response_headers },
  };
}
