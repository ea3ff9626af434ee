/**
 * Writes `source_invocations` rows: the `running` row before any byte is sent, then its one
 * terminal update. Every value passes through the call's Redactor on its way in.
 */
import { NoemaError } from '../../core/errors.ts';
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

const COLUMNS = `source_invocation_id, run_id, attempt_id, contract_id, world_slug, attempted_turn, invocation_seq,
  workflow_hash, workflow_node_id, workflow_subject_entity_id, source_hash, interface_name, invocation_kind,
  ambient_source_id, tool_name, parent_source_invocation_id, input_schema_hash, output_schema_hash, llm_call_id,
  logical_generation_attempt, tool_loop_round, status, started_at, request_json, response_headers, metadata,
  owner_process_id`;

/** The insert of a running row, with `seq` in the `invocation_seq` place. */
const insertWith = (seq: string) =>
  `INSERT INTO source_invocations (${COLUMNS})
  VALUES (?, ?, ?, ?, ?, ?, ${seq}, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'running', ?, ?, '{}', ?, ?)`;

/** A call outside an attempt and a run (seq 1), or one whose caller supplied its seq. */
const INSERT_GIVEN = insertWith('?');

/**
 * The next `invocation_seq` of the attempt (or of the run, for a call outside an attempt) is
 * allocated by the insert itself — no lock and no read of its own: the scope's partial unique index
 * turns away a number a concurrent call took first (after that call's transaction ends), and the
 * insert is tried again.
 */
const insertNext = (scope: string, index: string) =>
  `${insertWith(`(SELECT COALESCE(MAX(invocation_seq), 0) + 1 FROM source_invocations WHERE ${scope})`)}
  ON CONFLICT ${index} DO NOTHING`;

/**
 * The number the insert took, read back by the row's key. Not `RETURNING`: SQLite buffers a
 * returned row through a temporary b-tree opened and closed by every statement (about 5 µs a call,
 * the allocating insert's dearest part); the read is issued with the insert, so where the store
 * pipelines both share one round trip.
 */
const SEQ_OF = 'SELECT invocation_seq FROM source_invocations WHERE source_invocation_id = ?';
const INSERT_NEXT_IN_ATTEMPT = insertNext(
  'attempt_id = ?',
  '(attempt_id, invocation_seq) WHERE attempt_id IS NOT NULL',
);
const INSERT_NEXT_IN_RUN = insertNext(
  'run_id = ? AND attempt_id IS NULL',
  '(run_id, invocation_seq) WHERE attempt_id IS NULL AND run_id IS NOT NULL',
);

/**
 * Tries of an allocating insert. Each one turned away means another call of the scope committed its
 * row meanwhile (each try, under READ COMMITTED, reads the numbers committed before it), so running
 * out takes that many concurrent calls in one scope.
 */
const SEQ_TRIES = 100;

export async function insertRunning(
  tx: Transaction,
  inv: RunningInvocation,
  redactor: Redactor,
): Promise<number> {
  const l = inv.links;
  const scope = l.invocation_seq != null ? null : l.attempt_id ? 'attempt' : l.run_id ? 'run' : null;
  const given = l.invocation_seq ?? 1;
  const params: SqlValue[] = [
    inv.source_invocation_id,
    l.run_id ?? null,
    l.attempt_id ?? null,
    l.contract_id ?? null,
    l.world_slug ?? null,
    l.attempted_turn ?? null,
    scope === 'attempt' ? l.attempt_id! : scope === 'run' ? l.run_id! : given,
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
  if (scope === null) {
    await tx.run(INSERT_GIVEN, params);
    return given;
  }
  const sql = scope === 'attempt' ? INSERT_NEXT_IN_ATTEMPT : INSERT_NEXT_IN_RUN;
  const key = [inv.source_invocation_id];
  for (let i = 0; i < SEQ_TRIES; i++) {
    const inserted = tx.run(sql, params);
    const taken = tx.get<{ invocation_seq: number | string }>(SEQ_OF, key);
    // Checked in issue order: if the insert failed, the read's own failure is not the cause.
    taken.catch(() => {});
    if ((await inserted).changes === 1) return Number((await taken)!.invocation_seq);
    await taken;
  }
  throw new NoemaError('CONFLICT', `no invocation_seq could be allocated in ${SEQ_TRIES} tries`, {
    details: scope === 'attempt' ? { attempt_id: l.attempt_id } : { run_id: l.run_id },
    retryable: true,
  });
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
