/**
 * The promise every crash test checks: no finished call is made again. A call is told apart by a key
 * (an SQL expression over `source_invocations`, e.g. its run, node and request); a call with the key of
 * one that succeeded, started after that one ended, is that call made again.
 */
import type { Queryable } from '../store/store.ts';

export type RecordedCall = {
  id: string;
  key: string;
  status: string;
  started_at: number;
  ended_at: number | null;
};

/** Every invocation, with its key (`keySql`, an expression over `source_invocations`). */
export function recordedCalls(q: Queryable, keySql: string): Promise<RecordedCall[]> {
  return q.all<RecordedCall>(
    `SELECT source_invocation_id AS id, status, started_at, ended_at, ${keySql} AS key FROM source_invocations`,
  );
}

/** `"<again> repeats <done>"` for each call made again after an identical one succeeded. */
export function callsMadeAgain(calls: readonly RecordedCall[]): string[] {
  return calls.flatMap((done) =>
    done.status !== 'succeeded'
      ? []
      : calls
          .filter(
            (again) =>
              again.key === done.key &&
              again.id !== done.id &&
              Number(again.started_at) >= Number(done.ended_at),
          )
          .map((again) => `${again.id} repeats ${done.id}`),
  );
}
