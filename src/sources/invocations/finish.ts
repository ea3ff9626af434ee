/**
 * Finishing an invocation when the usual finish cannot: retrying a passing store fault, telling an
 * earlier attempt's COMMIT that did land, and recording a failure to record as `internal`.
 */
import { isStoreFault } from '../../store/index.ts';
import type { Store } from '../../store/store.ts';
import type { SourceFailure } from '../failure.ts';
import type { Redactor } from '../redact.ts';
import type { RecordedResponse, SourcePlan } from '../source.ts';
import { finishInvocation } from './record.ts';

const FINISH_RETRY_DELAYS_MS = [25, 100, 400];

export type FinalState = { status: string; ended_at: number | null };
export const FINAL_STATE = 'SELECT status, ended_at FROM source_invocations WHERE source_invocation_id = ?';

/** Whether the row already holds this outcome (an earlier attempt's COMMIT succeeded after all). */
export function finishedAs(row: FinalState | undefined, status: string, ended_at: number): boolean {
  return row?.status === status && Number(row.ended_at) === ended_at;
}

/** Runs `write` again after a retryable store error (busy, briefly unreachable), a few times. */
export async function retryStoreFault<T>(write: () => Promise<T>): Promise<T> {
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

export async function finishAsInternal(
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

/** Waits between tries of `interruptWhenBack`: about half a minute in all. */
const INTERRUPT_RETRY_DELAYS_MS = [250, 500, 1_000, 2_000, 4_000, 8_000, 16_000];

/**
 * Marks the running row `interrupted` once the store answers again, in the background: its call
 * ended, but the store was unreachable for longer than the finish's retries, so its result was never
 * recorded and is not used (the caller was handed the store fault; a run reclaimed elsewhere makes
 * the call again). A row the store still refuses after the last try stays `running` until this
 * process stops; recovery in another process then interrupts it.
 */
export function interruptWhenBack(store: Store, id: string, ended_at: number, cause: string): void {
  const message = `interrupted: the result could not be recorded (${cause})`;
  const attempt = (i: number) => {
    store
      .run(
        `UPDATE source_invocations SET status = 'interrupted', failure_class = 'interrupted', failure_message = ?,
                ended_at = ?, duration_ms = CASE WHEN ? >= started_at THEN ? - started_at ELSE 0 END
          WHERE source_invocation_id = ? AND status = 'running'`,
        [message, ended_at, ended_at, ended_at, id],
      )
      .catch((err: unknown) => {
        const delay = INTERRUPT_RETRY_DELAYS_MS[i];
        if (delay !== undefined && isStoreFault(err)) setTimeout(() => attempt(i + 1), delay).unref();
      });
  };
  setTimeout(() => attempt(0), INTERRUPT_RETRY_DELAYS_MS[0]).unref();
}
