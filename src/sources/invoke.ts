/**
 * `invokeSource`: the one way Noema calls out. It commits the `running` invocation (and the
 * kind's own trace rows) before the implementation sends a byte, runs the call under a
 * deadline, validates the JSON result, and finishes every row in one transaction. No retries:
 * a retry is the caller's decision and is a new invocation.
 */

import { validateCompiled } from '../core/compiled-validators.ts';
import { type NoemaError, toNoemaError } from '../core/errors.ts';
import { uuidv7 } from '../core/ids.ts';
import { invalidInput } from '../core/index.ts';
import { type InvocationFinished, type Telemetry, telemetry } from '../core/telemetry.ts';
import { STORE_BUSY, type Store, type SyncTransaction, type Transaction } from '../store/store.ts';
import { callDeadline } from './deadline.ts';
import { isSourceFailure, SourceFailure } from './failure.ts';
import { isOutputKindName } from './invocations/annotate.ts';
import { type ProcessLease, processLease } from './invocations/process-lease.ts';
import { type ProgressWriter, progressWriter } from './invocations/progress.ts';
import {
  finishedRow,
  finishInvocation,
  finishRow,
  finishRowAlone,
  finishRowSync,
  insertRunningRow,
  insertRunningRowAlone,
  insertRunningRowSync,
  type RunningRow,
  runningRow,
  runningRowCommitted,
} from './invocations/record.ts';
import { seqCacheOf } from './invocations/seq-cache.ts';
import { checkInvocationInput } from './links.ts';
import { createRedactor, type Redactor, secretsFromEnv } from './redact.ts';
import { responseSourceFor } from './registry.ts';
import type {
  FailureClass,
  FinishContext,
  RecordedResponse,
  SourceCall,
  SourcePlan,
  SourceSuccess,
  TraceValues,
} from './source.ts';

export interface InvocationOutcome {
  ok: boolean;
  source_invocation_id: string;
  invocation_seq: number;
  llm_call_id: string | null;
  /** `interrupted`: recovery in another process marked the row while the call ran; its result is not used. */
  status: 'succeeded' | 'failed' | 'interrupted';
  failure_class: FailureClass | null;
  /** The JSON result (validated when a result schema was given); undefined on failure. */
  output: unknown;
  /** On failure: the typed error (a SourceFailure for expected failures). */
  error: NoemaError | null;
}

/** Runs `write` in one transaction (the caller may add its own writes to it). */
export type TransactionRunner = <T>(write: (tx: Transaction) => Promise<T>) => Promise<T>;

export interface InvokeOptions {
  /**
   * Commits the `running` row: by default its own transaction; a caller passing a runner (the
   * engine, moving its contract to RUNNING) commits the row together with its own writes.
   */
  running?: TransactionRunner;
  /**
   * With `running`: the same transaction run synchronously (`Store.transactionSync`), tried first
   * where the lease needs no write; `STORE_BUSY` (nothing written) falls back to `running`.
   */
  runningSync?: <T>(write: (tx: SyncTransaction) => T) => T | typeof STORE_BUSY;
  /**
   * Commits the finished row with the caller's own writes: `write` finishes the rows and returns
   * the outcome the call will return (`null` when the row was interrupted meanwhile, `landed` when
   * an earlier attempt of the transaction committed). Retried after a retryable store fault; if it
   * fails otherwise, the row is finished alone as without it.
   */
  finished?: (write: (tx: Transaction) => Promise<InvocationOutcome | 'landed' | null>) => Promise<void>;
  /**
   * Told the outcome once the finished row, committed on its own (as without `finished`), holds it;
   * not called when it does not (recovery interrupted the row, or recording the result failed).
   */
  recorded?: (outcome: InvocationOutcome) => void;
}

export async function invokeSource(
  store: Store,
  call: SourceCall,
  options: InvokeOptions = {},
): Promise<InvocationOutcome> {
  const impl = responseSourceFor(call.source.content.interface.name);
  if (call.inputSchema) {
    const v = validateCompiled(call.inputSchema.schema, call.request);
    if (!v.ok) throw invalidInput('source request does not match its input schema', { errors: v.errors });
  }
  const env = call.env ?? process.env;
  const links = call.links ?? {};
  checkInvocationInput(call.kind, links);
  const id = uuidv7();
  let plan: SourcePlan | null = null;
  let planFailure: SourceFailure | null = null;
  try {
    plan = await impl.plan({
      source_invocation_id: id,
      iface: call.source.content.interface,
      store,
      request: call.request,
      kind: call.kind,
      links,
      resultSchema: call.resultSchema ?? null,
      env,
      timeoutMs: call.timeoutMs,
      ...(call.onChunk ? { onChunk: call.onChunk } : {}),
    });
  } catch (err) {
    if (!isSourceFailure(err)) throw err;
    planFailure = err;
  }
  const redactor = createRedactor([...secretsFromEnv(env), ...(plan?.secrets ?? [])]);
  const started_at = Date.now();
  const lease = processLease(store);
  const release = lease.hold();
  const observed = telemetry();
  // The kind's trace columns as written, kept only for an observer.
  let finishedColumns: TraceValues | undefined;
  try {
    const begun = plan?.begin?.({ source_invocation_id: id, started_at, redactor });
    // Encoded before the transaction opens: it holds the write lock for the statement alone.
    const row = runningRow(
      {
        source_invocation_id: id,
        source_hash: call.source.hash,
        interface_name: impl.name,
        invocation_kind: call.kind,
        links,
        input_schema_hash: call.inputSchema?.hash ?? null,
        output_schema_hash: call.resultSchema?.hash ?? null,
        llm_call_id: plan?.llm_call_id ?? null,
        request_json: plan ? plan.request_json : call.request,
        metadata: { ...links.metadata, ...plan?.metadata },
        started_at,
        owner_process_id: lease.processId,
      },
      redactor,
      begun,
      seqCacheOf(store),
    );
    const seq = await commitRunning(store, options, lease, row, started_at).catch(async (err: unknown) => {
      // Its COMMIT may have succeeded although it reported failure (the connection lost on the
      // answer). Nothing was sent, so a row left behind must not stay `running` under a live owner.
      const notSent = new SourceFailure(
        'internal',
        `not sent: recording the call failed: ${toNoemaError(err).message}`,
      );
      const times = { started_at, ended_at: Date.now() };
      await finishAsInternal(store, plan, id, notSent, times, redactor).catch(() => {});
      throw err;
    });
    runningRowCommitted(row, seq);
    lease.committed(started_at);
    const scope = {
      source_invocation_id: id,
      run_id: links.run_id ?? null,
      node_id: links.workflow_node_id ?? null,
    };
    const run = () => execute(plan!, call, id, progressWriter(store, plan!, redactor, id));
    const result = plan
      ? await (observed?.aroundCall && call.source.content.trace_context !== false
          ? observed.aroundCall(scope, run)
          : run())
      : { failure: planFailure!, success: null };
    const ended_at = Date.now();
    let failure = result.failure;
    let validation: FinishContext['validation'] = { status: 'not_checked', errors: [] };
    if (result.success && call.resultSchema) {
      const v = validateCompiled(call.resultSchema.schema, result.success.output);
      validation = v.ok ? { status: 'valid', errors: [] } : { status: 'invalid', errors: v.errors };
      if (!v.ok) {
        failure = new SourceFailure(
          'schema_invalid',
          `source result does not match its result schema: ${v.errors[0]?.message}`,
          {
            response: result.success,
            details: { errors: v.errors },
          },
        );
      }
    }
    const response = failure ? failure.response : (result.success ?? {});
    let status: 'succeeded' | 'failed' = failure ? 'failed' : 'succeeded';
    let interrupted = false;
    let recorded = null as RecordedResponse | null;
    const kind = call.outputKind && outputKindOf(call.outputKind, failure, result.success?.output);
    // Encoded before the transaction opens (and written as it is by a retry).
    const finishing = finishedRow(
      id,
      {
        ...response,
        ...(kind ? { model_output_kind: kind } : {}),
        status,
        failure_class: failure?.failureClass ?? null,
        failure_message: failure?.message ?? null,
        started_at,
        ended_at,
        validation_status: validation.status === 'not_checked' ? null : validation.status,
      },
      redactor,
      plan?.finish &&
        ((recorded) =>
          (finishedColumns = plan!.finish!({
            status,
            ended_at,
            failure: failure ? { failure_class: failure.failureClass, message: failure.message } : null,
            output: result.success?.output,
            validation,
            redactor,
            recorded,
          }))),
    );
    // The kind's statement after the finish (dropping the chunk batches a long stream wrote), if any.
    const after = plan?.afterFinish?.() ?? null;
    /** Notes how the finishing statement went: `finished` null means recovery interrupted the row first. */
    const finishedWith = (finished: RecordedResponse | null): 'landed' | 'written' => {
      interrupted = !finished;
      recorded = finished;
      return 'written';
    };
    /** Finishes the row (with the kind's columns); `landed` when an earlier attempt already committed it. */
    const finishRows = async (tx: Transaction): Promise<'landed' | 'written'> => {
      const finished = await finishRow(tx, finishing);
      // Not finished now: recovery marked it interrupted, or an earlier attempt's COMMIT did
      // succeed though it reported failure — then the row already holds this very outcome.
      if (!finished && finishedAs(await tx.get<FinalState>(FINAL_STATE, [id]), status, ended_at))
        return 'landed';
      if (finished && after) await tx.run(after.sql, after.params);
      return finishedWith(finished);
    };
    /** `finishRows` in a synchronous transaction, where the store offers one. */
    const finishRowsSync = (tx: SyncTransaction): 'landed' | 'written' => {
      const finished = finishRowSync(tx, finishing);
      if (!finished && finishedAs(tx.get<FinalState>(FINAL_STATE, [id]), status, ended_at)) return 'landed';
      if (finished && after) tx.run(after.sql, after.params);
      return finishedWith(finished);
    };
    const outcomeOf = (): InvocationOutcome => ({
      ok: !failure,
      source_invocation_id: id,
      invocation_seq: seq,
      llm_call_id: plan?.llm_call_id ?? null,
      status: interrupted ? 'interrupted' : status,
      failure_class: failure?.failureClass ?? null,
      // Callers store what they get (engine contracts, journals): hand back only redacted values.
      // When the output is the recorded response JSON, its one encoding already said whether.
      output: failure
        ? undefined
        : recorded?.response_json_clean && result.success?.output === response.response_json
          ? result.success?.output
          : redactor.clean(result.success?.output),
      error: failure ? redactedFailure(failure, redactor) : null,
    });
    let joined = false;
    /** The row finished on its own below, with this call's outcome unless `interrupted`. */
    let finishedAlone = false;
    if (options.finished) {
      try {
        // The caller's own writes (the engine settling its contract) commit with the finished row.
        await retryStoreFault(() =>
          options.finished!(async (tx) => {
            if ((await finishRows(tx)) === 'landed') return 'landed';
            return interrupted ? null : outcomeOf();
          }),
        );
        joined = true;
      } catch {
        // The caller's writes refused (its lease lost) or the store kept failing: finish the row
        // alone below, as without them; the caller learns the outcome from the return value.
      }
    }
    if (!joined) {
      try {
        // The result exists only in this process's memory now: a passing store fault must not lose it.
        // The running row was committed durably before sending; if the database server crashes
        // before this commit reaches disk, the row is `running` again and recovery interrupts it.
        // Whoever uses the result commits after this, and that commit's flush covers this one.
        await retryStoreFault(async () => {
          // One statement, committed on its own where the store can (no BEGIN/COMMIT around it).
          const alone = after ? undefined : finishRowAlone(store, finishing, DEFERRED);
          if (alone !== undefined) {
            if (!alone && finishedAs(await store.get<FinalState>(FINAL_STATE, [id]), status, ended_at))
              return;
            finishedWith(alone);
            return;
          }
          // Synchronously where the store can (no turn of the event loop inside the transaction).
          const done = store.transactionSync?.(finishRowsSync, DEFERRED);
          if (done === undefined || done === STORE_BUSY) await store.transaction(finishRows, DEFERRED);
        });
        finishedAlone = true;
      } catch (err) {
        // The row must not stay `running` (nor escape as INTERNAL) because its result could not be written.
        failure = new SourceFailure(
          'internal',
          `recording the source result failed: ${toNoemaError(err).message}`,
        );
        status = 'failed';
        recorded = null;
        await finishAsInternal(store, plan, id, failure, { started_at, ended_at }, redactor);
      }
    }
    if (interrupted) {
      lease.lost();
      failure = new SourceFailure('interrupted', 'the invocation was marked interrupted before it finished', {
        hint: "recovery in another process took this process's lease for expired; retry the call",
      });
    }
    const outcome = outcomeOf();
    if (options.recorded && finishedAlone && !interrupted) options.recorded(outcome);
    if (observed?.invocationFinished) {
      const content = () => ({
        request: redactor.json(plan ? plan.request_json : call.request),
        response: redactor.json(response.response_json ?? response.response_text ?? null),
      });
      observeInvocation(observed, {
        ...scope,
        interface_name: impl.name,
        invocation_kind: call.kind,
        status: outcome.status,
        failure_class: outcome.failure_class,
        started_at,
        ended_at,
        links: { ...links },
        metadata: { ...links.metadata, ...plan?.metadata },
        columns: { ...columnsOf(begun), ...columnsOf(finishedColumns) },
        content,
      });
    }
    return outcome;
  } finally {
    release();
  }
}

const FINISH_RETRY_DELAYS_MS = [25, 100, 400];

/** Tells the observer of a finished invocation; its failure never reaches the caller. */
function observeInvocation(t: Telemetry, inv: InvocationFinished): void {
  try {
    t.invocationFinished?.(inv);
  } catch {
    // The observer logs its own incidents.
  }
}

function columnsOf(values: TraceValues | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!values) return out;
  for (let i = 0; i < values.columns.names.length; i++) out[values.columns.names[i]!] = values.values[i];
  return out;
}

const DEFERRED = { durability: 'deferred' } as const;

type FinalState = { status: string; ended_at: number | null };
const FINAL_STATE = 'SELECT status, ended_at FROM source_invocations WHERE source_invocation_id = ?';

/** The caller's name for the result's `model_output_kind`: null when it names none, or throws. */
function outputKindOf(
  name: NonNullable<SourceCall['outputKind']>,
  failure: SourceFailure | null,
  output: unknown,
): string | null {
  try {
    const kind = failure
      ? name({ ok: false, failure_class: failure.failureClass })
      : name({ ok: true, output });
    return kind !== null && isOutputKindName(kind) ? kind : null;
  } catch {
    return null;
  }
}

/** Whether the row already holds this outcome (an earlier attempt's COMMIT succeeded after all). */
function finishedAs(row: FinalState | undefined, status: string, ended_at: number): boolean {
  return row?.status === status && Number(row.ended_at) === ended_at;
}

/**
 * Commits the running row: in the caller's transaction when it passed a runner (its synchronous one
 * first, where it has one and the lease needs no write); else synchronously where the store offers
 * it and the lease needs no write (no turn of the event loop inside the transaction) — as its one
 * statement committed on its own when its seq is given, else in a synchronous transaction; else in
 * a transaction of its own.
 */
async function commitRunning(
  store: Store,
  options: InvokeOptions,
  lease: ProcessLease,
  row: RunningRow,
  now: number,
): Promise<number> {
  if (!lease.needsTouch(now)) {
    // The caller's synchronous runner where it has one; else one statement, committed on its own
    // where the store can, or one synchronous transaction.
    const seq = options.running
      ? options.runningSync?.((tx) => insertRunningRowSync(tx, row))
      : (insertRunningRowAlone(store, row) ?? store.transactionSync?.((tx) => insertRunningRowSync(tx, row)));
    if (seq !== undefined && seq !== STORE_BUSY) return seq;
  }
  const running: TransactionRunner = options.running ?? ((write) => store.transaction(write));
  return running(async (tx) => {
    await lease.touch(tx, now);
    return insertRunningRow(tx, row);
  });
}

/** Runs `write` again after a retryable store error (busy, briefly unreachable), a few times. */
async function retryStoreFault<T>(write: () => Promise<T>): Promise<T> {
  for (let i = 0; ; i++) {
    try {
      return await write();
    } catch (err) {
      const delay = FINISH_RETRY_DELAYS_MS[i];
      if ((err as { retryable?: unknown }).retryable !== true || delay === undefined) throw err;
      await new Promise((r) => setTimeout(r, delay));
    }
  }
}

function redactedFailure(f: SourceFailure, redactor: Redactor): SourceFailure {
  const message = redactor.text(f.message);
  const hint = f.hint === undefined ? undefined : redactor.text(f.hint);
  const details = redactor.json(f.details);
  if (message === f.message && hint === f.hint && JSON.stringify(details) === JSON.stringify(f.details)) {
    return f;
  }
  return new SourceFailure(f.failureClass, message, {
    response: f.response,
    retryable: f.retryable,
    details,
    ...(hint !== undefined ? { hint } : {}),
  });
}

async function finishAsInternal(
  store: Store,
  plan: SourcePlan | null,
  id: string,
  failure: SourceFailure,
  times: { started_at: number; ended_at: number },
  redactor: Redactor,
): Promise<void> {
  const row = {
    ...times,
    status: 'failed' as const,
    failure_class: 'internal',
    failure_message: failure.message,
    validation_status: null,
  };
  const info = { failure_class: 'internal' as const, message: failure.message };
  const finish = { status: 'failed' as const, ended_at: times.ended_at, failure: info, output: undefined };
  const validation = { status: 'not_checked' as const, errors: [] };
  try {
    await store.transaction(async (tx) => {
      const kind =
        plan?.finish &&
        ((recorded: RecordedResponse) => plan.finish!({ ...finish, validation, redactor, recorded }));
      const after = (await finishInvocation(tx, id, row, redactor, kind)) && plan?.afterFinish?.();
      if (after) await tx.run(after.sql, after.params);
    });
  } catch {
    // The kind's columns refused too: record the invocation alone; recovery is the last resort.
    await store.transaction((tx) => finishInvocation(tx, id, row, redactor));
  }
}

async function execute(
  plan: SourcePlan,
  call: SourceCall,
  id: string,
  progress: ProgressWriter,
): Promise<{ success: SourceSuccess; failure: null } | { success: null; failure: SourceFailure }> {
  const deadline = callDeadline(call.signal, call.timeoutMs ?? plan.timeout_ms);
  try {
    return {
      success: await plan.execute({
        signal: deadline.signal,
        source_invocation_id: id,
        timedOut: deadline.timedOut,
        cancelled: deadline.cancelled,
        progressed: progress.progressed,
      }),
      failure: null,
    };
  } catch (err) {
    if (isSourceFailure(err)) return { success: null, failure: err };
    if (deadline.timedOut())
      return { success: null, failure: new SourceFailure('timeout', 'source call timed out') };
    if (deadline.cancelled())
      return { success: null, failure: new SourceFailure('cancelled', 'source call was cancelled') };
    const e = toNoemaError(err);
    return {
      success: null,
      failure: new SourceFailure('internal', `source implementation failed: ${e.message}`),
    };
  } finally {
    deadline.dispose();
    await progress.stop();
  }
}
