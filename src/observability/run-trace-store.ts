/** Reads and writes the trace context a run was started under (`run_trace_contexts`). */
import type { Store } from '../store/index.ts';
import { formatTraceparent, parseTraceparent, type SpanRef } from './trace-context.ts';

export interface RunTraceStore {
  read(run_id: string): Promise<SpanRef | null>;
}

/** The row of a run's trace context, committed with the run's creation (`Telemetry.runRows`). */
export function runTraceRow(
  run_id: string,
  parent: SpanRef,
  now: number,
): { sql: string; params: unknown[] } {
  return {
    sql: 'INSERT INTO run_trace_contexts (run_id, traceparent, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING',
    params: [run_id, formatTraceparent(parent), now],
  };
}

export function runTraceStore(store: Store): RunTraceStore {
  return {
    async read(run_id) {
      const row = await store.get<{ traceparent: string }>(
        'SELECT traceparent FROM run_trace_contexts WHERE run_id = ?',
        [run_id],
      );
      return row ? parseTraceparent(row.traceparent) : null;
    },
  };
}
