/** `flowchart_runs`: what the engine run does not know (flowchart, input, request/correlation ids). */
import { NoemaError } from '../../../core/errors.ts';
import type { Json } from '../../../engine/index.ts';
import type { Queryable } from '../../../store/store.ts';
import type { RunMeta } from './context.ts';

export interface FlowRunRow extends RunMeta {
  input: Json;
  created_at: string;
}

export function unknownFlowRun(flowchart_run_id: string): NoemaError {
  return new NoemaError('UNKNOWN_FLOWCHART_RUN', `no flowchart run "${flowchart_run_id}"`, {
    status: 404,
    details: { flowchart_run_id },
  });
}

export async function readFlowRunRow(q: Queryable, flowchart_run_id: string): Promise<FlowRunRow> {
  const r = await q.get('SELECT * FROM flowchart_runs WHERE flowchart_run_id = ?', [flowchart_run_id]);
  if (!r) throw unknownFlowRun(flowchart_run_id);
  return {
    flowchart_run_id: r.flowchart_run_id as string,
    flowchart_id: r.flowchart_id as string,
    request_id: r.request_id as string,
    correlation_id: (r.correlation_id as string | null) ?? null,
    input: JSON.parse(r.input_json as string) as Json,
    created_at: r.created_at as string,
  };
}

// Immutable rows: a small cache saves one read per node execution.
const cache = new Map<string, RunMeta>();

/** What the process that created the run already knows: its first node need not read it back. */
export function rememberRunMeta(meta: RunMeta): void {
  if (cache.size >= 1000) cache.clear();
  cache.set(meta.flowchart_run_id, meta);
}

export async function readRunMeta(q: Queryable, flowchart_run_id: string): Promise<RunMeta> {
  const hit = cache.get(flowchart_run_id);
  if (hit) return hit;
  const { input: _input, created_at: _c, ...meta } = await readFlowRunRow(q, flowchart_run_id);
  if (cache.size >= 1000) cache.clear();
  cache.set(flowchart_run_id, meta);
  return meta;
}
