/**
 * The observability layer's table (ids 900–909): the trace context a run was started under, when an
 * incoming `traceparent` named one, so a process that resumes the run continues the caller's trace.
 */
import type { Migration } from '../store/index.ts';

export const observabilityMigrations: readonly Migration[] = [
  {
    id: 900,
    name: 'observability: trace context of runs started under an incoming traceparent',
    up: (d) => [
      `CREATE TABLE run_trace_contexts (
         run_id TEXT PRIMARY KEY,
         traceparent TEXT NOT NULL,
         created_at ${d.bigint} NOT NULL
       )`,
    ],
  },
];
