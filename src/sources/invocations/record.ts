/**
 * Writes `source_invocations` rows: the `running` row before any byte is sent, then its one
 * terminal update. Every value passes through the call's Redactor on its way in.
 */
import { NoemaError } from '../../core/errors.ts';
import {
  type Queryable,
  type SqlValue,
  STORE_BUSY,
  type Store,
  type SyncTransaction,
  type Transaction,
  type TransactionOptions,
} from '../../store/store.ts';
import type { Redactor } from '../redact.ts';
import type {
  InvocationKind,
  InvocationLinks,
  RecordedResponse,
  SourceResponse,
  TraceColumns,
  TraceValues,
} from '../source.ts';
import { guessedSeq, type SeqCache, seqCommitted, seqScopeKey } from './seq-cache.ts';

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

/** The insert of a running row with a kind's trace columns, with `seq` in the `invocation_seq` place. */
const insertWith = (seq: string, trace: readonly string[]) =>
  `INSERT INTO source_invocations (${COLUMNS}${trace.map((c) => `, ${c}`).join('')})
  VALUES (?, ?, ?, ?, ?, ?, ${seq}, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'running', ?, ?, '{}', ?, ?${',?'.repeat(trace.length)})`;

/**
 * The next `invocation_seq` of the attempt (or of the run, for a call outside an attempt) is
 * allocated by the insert itself — no lock and no read of its own: the scope's partial unique index
 * turns away a number a concurrent call took first (after that call's transaction ends), and the
 * insert is tried again.
 */
const insertNext = (scope: string, index: string, trace: readonly string[]) =>
  `${insertWith(`(SELECT COALESCE(MAX(invocation_seq), 0) + 1 FROM source_invocations WHERE ${scope})`, trace)}
  ON CONFLICT ${index} DO NOTHING`;

/**
 * The number the allocating insert took (a new scope's first call names 1 instead, see `named`),
 * read back by the row's key. Not `RETURNING`: SQLite buffers a
 * returned row through a temporary b-tree opened and closed by every statement (about 5 µs a call,
 * the allocating insert's dearest part); the read is issued with the insert, so where the store
 * pipelines both share one round trip.
 */
const SEQ_OF = 'SELECT invocation_seq FROM source_invocations WHERE source_invocation_id = ?';

/** The inserts of a running row for one list of trace columns. */
interface Inserts {
  /** A call outside an attempt and a run (seq 1), or one whose caller supplied its seq. */
  given: string;
  inAttempt: string;
  inRun: string;
  /** The seq named (see seq-cache.ts), turned away without error when the scope holds it already. */
  namedInAttempt: string;
  namedInRun: string;
}

const ATTEMPT_SEQ_INDEX = '(attempt_id, invocation_seq) WHERE attempt_id IS NOT NULL';
const RUN_SEQ_INDEX = '(run_id, invocation_seq) WHERE attempt_id IS NULL AND run_id IS NOT NULL';

const inserts = (trace: readonly string[]): Inserts => ({
  given: insertWith('?', trace),
  inAttempt: insertNext('attempt_id = ?', ATTEMPT_SEQ_INDEX, trace),
  inRun: insertNext('run_id = ? AND attempt_id IS NULL', RUN_SEQ_INDEX, trace),
  namedInAttempt: `${insertWith('?', trace)} ON CONFLICT ${ATTEMPT_SEQ_INDEX} DO NOTHING`,
  namedInRun: `${insertWith('?', trace)} ON CONFLICT ${RUN_SEQ_INDEX} DO NOTHING`,
});

const PLAIN_INSERTS = inserts([]);
const traceInserts = new WeakMap<TraceColumns, Inserts>();

function insertsFor(trace: TraceColumns | undefined): Inserts {
  if (!trace) return PLAIN_INSERTS;
  let sql = traceInserts.get(trace);
  if (!sql) {
    sql = inserts(trace.names);
    traceInserts.set(trace, sql);
  }
  return sql;
}

/**
 * Tries of an allocating insert. Each one turned away means another call of the scope committed its
 * row meanwhile (each try, under READ COMMITTED, reads the numbers committed before it), so running
 * out takes that many concurrent calls in one scope.
 */
const SEQ_TRIES = 100;

/** A running row ready to insert: its values encoded and redacted, before the transaction opens. */
export interface RunningRow {
  sql: Inserts;
  scope: 'attempt' | 'run' | null;
  /** The scope's key in the store's seq cache (null outside a scope, or without a cache). */
  scopeKey: string | null;
  seqs: SeqCache | null;
  given: number;
  params: SqlValue[];
  /** For the error of a scope whose seq could not be allocated. */
  links: InvocationLinks;
}

/** Inserts the running row, with the kind's trace columns (`trace`) when it has any. */
export function insertRunning(
  tx: Transaction,
  inv: RunningInvocation,
  redactor: Redactor,
  trace?: TraceValues,
): Promise<number> {
  return insertRunningRow(tx, runningRow(inv, redactor, trace));
}

/**
 * Encodes a running row (with the kind's trace columns): done before its transaction opens, so
 * the transaction holds the write lock only for the statement.
 */
export function runningRow(
  inv: RunningInvocation,
  redactor: Redactor,
  trace?: TraceValues,
  seqs: SeqCache | null = null,
): RunningRow {
  const sql = insertsFor(trace?.columns);
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
  if (trace) appendValues(params, trace.values);
  const scopeKey =
    scope === null || seqs === null
      ? null
      : seqScopeKey(scope, scope === 'attempt' ? l.attempt_id! : l.run_id!);
  return { sql, scope, scopeKey, seqs, given, params, links: l };
}

/**
 * The seq this process may name for the row's scope, with the insert that names it; null if none.
 * A scope this process has no seq noted for is almost always new (an attempt is one claim, a run is
 * mostly called out of by the process that created it, and each notes its seqs): its first call names
 * 1, which the scope's unique index turns away when the scope holds rows already (a run resumed by
 * another process) — the allocating insert follows then, as it would have — so a new scope's first
 * call costs one statement, not an insert and a read-back.
 */
function named(row: RunningRow): { seq: number; sql: string; params: SqlValue[] } | null {
  if (row.scopeKey === null || row.seqs === null) return null;
  const seq = guessedSeq(row.seqs, row.scopeKey) ?? 1;
  const params = row.params.slice();
  // The allocating insert's scope id stands where the seq goes.
  params[SEQ_PARAM] = seq;
  return { seq, sql: row.scope === 'attempt' ? row.sql.namedInAttempt : row.sql.namedInRun, params };
}

/** The position of `invocation_seq` among a running row's parameters. */
const SEQ_PARAM = 6;

/** Notes a committed row's seq for its scope's next call (see seq-cache.ts). */
export function runningRowCommitted(row: RunningRow, seq: number): void {
  if (row.scopeKey !== null && row.seqs !== null) seqCommitted(row.seqs, row.scopeKey, seq);
}

/**
 * The seq a running row named for itself (`named`) was held by another row of its scope (a call made
 * at the same time, a run resumed by another process): its transaction is refused and rolled back.
 */
export class SeqNameTaken extends Error {
  constructor() {
    super('the invocation_seq this call named was taken; its transaction is made again without naming one');
  }
}

/** The same row, inserted without naming its seq (after `SeqNameTaken`): the allocating insert. */
export function unnamed(row: RunningRow): RunningRow {
  return { ...row, seqs: null };
}

/**
 * Inserts a running row; returns its `invocation_seq`. A seq it names is taken: the transaction fails
 * with `SeqNameTaken` (its caller makes it again with `unnamed(row)`).
 */
export async function insertRunningRow(tx: Transaction, row: RunningRow): Promise<number> {
  const { sql, scope, given, params } = row;
  if (scope === null) {
    // Its answer is not needed: where the store pipelines, the COMMIT goes right behind it.
    tx.write(sql.given, params);
    return given;
  }
  const guess = named(row);
  if (guess !== null) {
    // Not waited for either: if another row holds the seq, the database refuses the transaction
    // (SeqNameTaken) and the caller makes it again without naming one (`commitRunning`).
    tx.writeOne(guess.sql, guess.params, () => new SeqNameTaken());
    return guess.seq;
  }
  const insert = scope === 'attempt' ? sql.inAttempt : sql.inRun;
  const key = [params[0]!];
  for (let i = 0; i < SEQ_TRIES; i++) {
    const inserted = tx.run(insert, params);
    const taken = tx.get<{ invocation_seq: number | string }>(SEQ_OF, key);
    // Checked in issue order: if the insert failed, the read's own failure is not the cause.
    taken.catch(() => {});
    if ((await inserted).changes === 1) return Number((await taken)!.invocation_seq);
    await taken;
  }
  throw seqNotAllocated(row);
}

/** `insertRunningRow` in a synchronous transaction (a store with synchronous statements). */
export function insertRunningRowSync(tx: SyncTransaction, row: RunningRow): number {
  const { sql, scope, given, params } = row;
  if (scope === null) {
    tx.run(sql.given, params);
    return given;
  }
  const guess = named(row);
  if (guess !== null && tx.run(guess.sql, guess.params).changes === 1) return guess.seq;
  const insert = scope === 'attempt' ? sql.inAttempt : sql.inRun;
  const key = [params[0]!];
  for (let i = 0; i < SEQ_TRIES; i++) {
    if (tx.run(insert, params).changes === 1)
      return Number(tx.get<{ invocation_seq: number | string }>(SEQ_OF, key)!.invocation_seq);
  }
  throw seqNotAllocated(row);
}

/**
 * Inserts a running row as a statement committed on its own (`Store.runSync`: no BEGIN/COMMIT
 * around it) when it is one statement — its seq given, or named for its scope by this process —
 * and the store offers that; returns its `invocation_seq`, or undefined when the caller must use a
 * transaction (a named seq turned away leaves the allocating insert to it).
 */
export function insertRunningRowAlone(store: Store, row: RunningRow): number | undefined {
  if (!store.runSync) return undefined;
  if (row.scope === null)
    return store.runSync(row.sql.given, row.params) === STORE_BUSY ? undefined : row.given;
  const guess = named(row);
  if (guess === null) return undefined;
  const r = store.runSync(guess.sql, guess.params);
  return r !== STORE_BUSY && r.changes === 1 ? guess.seq : undefined;
}

/**
 * `insertRunningRowAlone` where the store's single statements are asynchronous (`Store.runAlone`):
 * one round trip instead of BEGIN, the insert and COMMIT; undefined when the caller must use a
 * transaction (no such primitive, no seq to name, or the named seq turned away).
 */
export async function insertRunningRowAloneAsync(store: Store, row: RunningRow): Promise<number | undefined> {
  if (!store.runAlone) return undefined;
  if (row.scope === null) {
    await store.runAlone(row.sql.given, row.params);
    return row.given;
  }
  const guess = named(row);
  if (guess === null) return undefined;
  return (await store.runAlone(guess.sql, guess.params)).changes === 1 ? guess.seq : undefined;
}

function seqNotAllocated({ scope, links: l }: RunningRow): NoemaError {
  return new NoemaError('CONFLICT', `no invocation_seq could be allocated in ${SEQ_TRIES} tries`, {
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
const finishWith = (trace: readonly string[]) =>
  `UPDATE source_invocations SET status = ?, failure_class = ?, failure_message = ?, ended_at = ?,
  duration_ms = ?, response_json = ?, response_text = ?, response_headers = ?, http_status = ?, validation_status = ?,
  model_output_kind = ?${trace.map((c) => `, ${c} = ?`).join('')} WHERE source_invocation_id = ? AND status = 'running'`;

const PLAIN_FINISH = finishWith([]);
const traceFinishes = new WeakMap<TraceColumns, string>();

function finishFor(trace: TraceColumns | undefined): string {
  if (!trace) return PLAIN_FINISH;
  let sql = traceFinishes.get(trace);
  if (sql === undefined) {
    sql = finishWith(trace.names);
    traceFinishes.set(trace, sql);
  }
  return sql;
}

/** A finished row ready to write: its values encoded and redacted, before the transaction opens. */
export interface FinishedRow {
  sql: string;
  params: SqlValue[];
  /** What the row's own columns are written with. */
  recorded: RecordedResponse;
}

/**
 * Finishes a running row, with the kind's trace columns (`trace`, given what the row's own
 * columns are written with) in the same statement; null when it was not running any more
 * (recovery interrupted it), and then nothing was written.
 */
export function finishInvocation(
  q: Queryable,
  id: string,
  o: InvocationOutcomeRow,
  redactor: Redactor,
  trace?: (recorded: RecordedResponse) => TraceValues | undefined,
): Promise<RecordedResponse | null> {
  return finishRow(q, finishedRow(id, o, redactor, trace));
}

/** Encodes the finish of a row (see `runningRow`); the same one is written again by a retry. */
export function finishedRow(
  id: string,
  o: InvocationOutcomeRow,
  redactor: Redactor,
  trace?: (recorded: RecordedResponse) => TraceValues | undefined,
): FinishedRow {
  // The output's one JSON encoding: the same pass tells whether it needs redacting.
  const json = o.response_json === undefined ? null : redactor.jsonTextChecked(o.response_json);
  const responseText = o.response_text == null ? null : redactor.text(o.response_text);
  const headers = redactor.headersText(o.response_headers ?? {});
  const recorded: RecordedResponse = {
    response_text: responseText,
    has_response_json: json !== null,
    response_json_clean: json?.clean ?? true,
    response_headers: headers,
    from: { response_text: o.response_text ?? null, response_headers: o.response_headers },
  };
  const kind = trace?.(recorded);
  const params: SqlValue[] = [
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
  ];
  if (kind) appendValues(params, kind.values);
  params.push(id);
  return { sql: finishFor(kind?.columns), params, recorded };
}

/** Writes a finished row; null when it was not running any more, and then nothing was written. */
export async function finishRow(q: Queryable, row: FinishedRow): Promise<RecordedResponse | null> {
  const r = await q.run(row.sql, row.params);
  return r.changes === 1 ? row.recorded : null;
}

/** `finishRow` in a synchronous transaction. */
export function finishRowSync(tx: SyncTransaction, row: FinishedRow): RecordedResponse | null {
  return tx.run(row.sql, row.params).changes === 1 ? row.recorded : null;
}

/**
 * `finishRow` as a statement committed on its own (`Store.runSync`), where the store offers that;
 * undefined when it did not run (no such primitive, or the connection busy): use a transaction.
 */
export function finishRowAlone(
  store: Store,
  row: FinishedRow,
  options?: TransactionOptions,
): RecordedResponse | null | undefined {
  const r = store.runSync?.(row.sql, row.params, options);
  if (r === undefined || r === STORE_BUSY) return undefined;
  return r.changes === 1 ? row.recorded : null;
}

/** `finishRowAlone` where the store's single statements are asynchronous; undefined without that primitive. */
export async function finishRowAloneAsync(
  store: Store,
  row: FinishedRow,
  options?: TransactionOptions,
): Promise<RecordedResponse | null | undefined> {
  if (!store.runAlone) return undefined;
  return (await store.runAlone(row.sql, row.params, options)).changes === 1 ? row.recorded : null;
}

/**
 * `params.push(...values)` for a kind's trace values (a few dozen, on every call's running row and
 * finish), by index: a `for…of` loop made an iterator step object per value.
 */
function appendValues(params: SqlValue[], values: readonly SqlValue[]): void {
  for (let i = 0; i < values.length; i++) params.push(values[i]!);
}
