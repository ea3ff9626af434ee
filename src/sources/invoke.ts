/**
 * `invokeSource`: the one way Noema calls out. It commits the `running` invocation (and the
 * kind's own trace rows) before the implementation sends a byte, runs the call under a
 * deadline, validates the JSON result, and finishes every row in one transaction. No retries:
 * a retry is the caller's decision and is a new invocation.
 */

import { validateCompiled } from '../core/compiled-validators.ts';
import { toNoemaError } from '../core/errors.ts';
import { uuidv7 } from '../core/ids.ts';
import { invalidInput } from '../core/index.ts';
import { telemetry } from '../core/telemetry.ts';
import { isStoreFault } from '../store/index.ts';
import { STORE_BUSY, type Store, type SyncTransaction, type Transaction } from '../store/store.ts';
import { isSourceFailure, SourceFailure } from './failure.ts';
import { commitRunning } from './invocations/commit-running.ts';
import { executePlan } from './invocations/execute.ts';
import {
  FINAL_STATE,
  type FinalState,
  finishAsInternal,
  finishedAs,
  interruptWhenBack,
  retryStoreFault,
} from './invocations/finish.ts';
import type { InvocationOutcome, InvokeOptions } from './invocations/options.ts';
import { columnsOf, observeInvocation, outputKindOf, redactedFailure } from './invocations/outcome.ts';
import { processLease } from './invocations/process-lease.ts';
import { progressWriter } from './invocations/progress.ts';
import {
  finishedRow,
  finishRow,
  finishRowAlone,
  finishRowAloneAsync,
  finishRowSync,
  runningRow,
  runningRowCommitted,
} from './invocations/record.ts';
import { seqCacheOf } from './invocations/seq-cache.ts';
import { checkInvocationInput } from './links.ts';
import { createRedactor, secretsFromEnv } from './redact.ts';
import { responseSourceFor } from './registry.ts';
import type { FinishContext, RecordedResponse, SourceCall, SourcePlan, TraceValues } from './source.ts';

export type { InvocationOutcome, InvokeOptions, TransactionRunner } from './invocations/options.ts';

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
    const run = () => executePlan(plan!, call, id, progressWriter(store, plan!, redactor, id));
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
          // One statement, committed on its own where the store can (no BEGIN/COMMIT around it):
          // synchronously, or in one round trip.
          const alone = after
            ? undefined
            : (finishRowAlone(store, finishing, DEFERRED) ??
              (await finishRowAloneAsync(store, finishing, DEFERRED)));
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
        // The store unreachable for longer than the retries: that is not the call's failure (a run
        // would fail on a passing outage). The caller gets the store fault (a run stays reclaimable
        // and the call is made again); the row is marked interrupted once the store answers.
        if (isStoreFault(err)) {
          interruptWhenBack(store, id, ended_at, toNoemaError(err).message);
          throw err;
        }
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
        columns: columnsOf(begun, finishedColumns),
        content,
      });
    }
    return outcome;
  } finally {
    release();
  }
}

const DEFERRED = { durability: 'deferred' } as const;
