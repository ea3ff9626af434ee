/**
 * `flowchart_node_runs`: one row per execution of a flowchart node. The id is derived from
 * (run, super-step, node), so a node re-executed after a crash finds its row: a finished one is
 * replayed instead of repeating its side effects (plan writes, memories, milestones).
 */
import { sha256Hex } from '../../../core/hash.ts';
import type { Json } from '../../../engine/index.ts';
import type { Queryable, SqlValue } from '../../../store/store.ts';
import type { FlowNodeType } from '../types.ts';

/** `cancelled`: the run was cancelled while the node ran (`error.code` RUN_CANCELLED). */
export type NodeRunStatus = 'running' | 'succeeded' | 'failed' | 'cancelled';

export interface NodeRunError {
  code: string;
  message: string;
  details?: Json;
}

export interface NodeRun {
  node_run_id: string;
  flowchart_run_id: string;
  flowchart_id: string;
  flowchart_node_id: string;
  flowchart_node_type: FlowNodeType;
  execution_index: number;
  status: NodeRunStatus;
  output_state: Json | null;
  routing_state: Json | null;
  error: NodeRunError | null;
  started_at: string;
  finished_at: string | null;
  duration_ms: number | null;
}

export function nodeRunId(flowchart_run_id: string, step: number, node_id: string): string {
  const h = sha256Hex(`${flowchart_run_id}\u0000${step}\u0000${node_id}`);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

const parse = (v: unknown) => (v === null || v === undefined ? null : JSON.parse(v as string));

export function toNodeRun(r: Record<string, unknown>): NodeRun {
  return {
    node_run_id: r.node_run_id as string,
    flowchart_run_id: r.flowchart_run_id as string,
    flowchart_id: r.flowchart_id as string,
    flowchart_node_id: r.flowchart_node_id as string,
    flowchart_node_type: r.flowchart_node_type as FlowNodeType,
    execution_index: Number(r.execution_index),
    status: r.status as NodeRunStatus,
    output_state: parse(r.output_state),
    routing_state: parse(r.routing_state),
    error: parse(r.error),
    started_at: r.started_at as string,
    finished_at: (r.finished_at as string | null) ?? null,
    duration_ms: r.duration_ms === null || r.duration_ms === undefined ? null : Number(r.duration_ms),
  };
}

export async function getNodeRun(q: Queryable, node_run_id: string): Promise<NodeRun | null> {
  const r = await q.get('SELECT * FROM flowchart_node_runs WHERE node_run_id = ?', [node_run_id]);
  return r ? toNodeRun(r) : null;
}

export type NodeRunStart = Pick<
  NodeRun,
  'node_run_id' | 'flowchart_run_id' | 'flowchart_id' | 'flowchart_node_id' | 'flowchart_node_type'
>;

/**
 * The start of an execution, as a statement to commit with the node's first record (its first model
 * call's, or its finish): running it again changes nothing, and a row an earlier execution left stays.
 */
export function beginNodeRunStatement(
  r: NodeRunStart,
  startedAt: string,
): { sql: string; params: SqlValue[] } {
  return {
    sql: `INSERT INTO flowchart_node_runs (node_run_id, flowchart_run_id, flowchart_id, flowchart_node_id, flowchart_node_type,
       execution_index, status, started_at)
     VALUES (?, ?, ?, ?, ?, (SELECT COUNT(*) + 1 FROM flowchart_node_runs WHERE flowchart_run_id = ?), 'running', ?)
     ON CONFLICT (node_run_id) DO NOTHING`,
    params: [
      r.node_run_id,
      r.flowchart_run_id,
      r.flowchart_id,
      r.flowchart_node_id,
      r.flowchart_node_type,
      r.flowchart_run_id,
      startedAt,
    ],
  };
}

export interface NodeRunFinish {
  status: 'succeeded' | 'failed';
  output_state: Json | null;
  routing_state: Json | null;
  error: NodeRunError | null;
}

/** The finish of a running execution; one already ended (a cancel, a replay) is left as it is. */
export function finishNodeRunStatement(
  node_run_id: string,
  f: NodeRunFinish,
  finishedAt: string,
  durationMs: number,
): { sql: string; params: SqlValue[] } {
  return {
    sql: `UPDATE flowchart_node_runs SET status = ?, output_state = ?, routing_state = ?, error = ?, finished_at = ?, duration_ms = ?
     WHERE node_run_id = ? AND status = 'running'`,
    params: [
      f.status,
      f.output_state === null ? null : JSON.stringify(f.output_state),
      f.routing_state === null ? null : JSON.stringify(f.routing_state),
      f.error === null ? null : JSON.stringify(f.error),
      finishedAt,
      Math.max(0, Math.round(durationMs)),
      node_run_id,
    ],
  };
}

/**
 * A start and finish written together, for an execution whose start has not been written yet (a node
 * that made no model call): one statement, the start's insert finishing the row; a row an earlier
 * execution left is finished as `finishNodeRunStatement` would, one already ended is left as it is.
 */
export function startedAndFinishedStatement(
  r: NodeRunStart,
  startedAt: string,
  f: NodeRunFinish,
  finishedAt: string,
  durationMs: number,
): { sql: string; params: SqlValue[] } {
  return {
    sql: `INSERT INTO flowchart_node_runs (node_run_id, flowchart_run_id, flowchart_id, flowchart_node_id, flowchart_node_type,
       execution_index, status, output_state, routing_state, error, started_at, finished_at, duration_ms)
     VALUES (?, ?, ?, ?, ?, (SELECT COUNT(*) + 1 FROM flowchart_node_runs WHERE flowchart_run_id = ?), ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (node_run_id) DO UPDATE SET status = excluded.status, output_state = excluded.output_state,
       routing_state = excluded.routing_state, error = excluded.error, finished_at = excluded.finished_at,
       duration_ms = excluded.duration_ms
     WHERE flowchart_node_runs.status = 'running'`,
    params: [
      r.node_run_id,
      r.flowchart_run_id,
      r.flowchart_id,
      r.flowchart_node_id,
      r.flowchart_node_type,
      r.flowchart_run_id,
      f.status,
      f.output_state === null ? null : JSON.stringify(f.output_state),
      f.routing_state === null ? null : JSON.stringify(f.routing_state),
      f.error === null ? null : JSON.stringify(f.error),
      startedAt,
      finishedAt,
      Math.max(0, Math.round(durationMs)),
    ],
  };
}

export async function finishNodeRun(
  q: Queryable,
  node_run_id: string,
  f: NodeRunFinish,
  finishedAt: string,
  durationMs: number,
): Promise<boolean> {
  // Only a running one: a node run ended by a cancel stays ended (false).
  const w = finishNodeRunStatement(node_run_id, f, finishedAt, durationMs);
  return (await q.run(w.sql, w.params)).changes === 1;
}

/** Ends the run's node runs still `running` as `cancelled` (in the transaction that cancels the run). */
export async function cancelNodeRuns(q: Queryable, flowchart_run_id: string, at: number): Promise<number> {
  const running = await q.all<{ node_run_id: string; started_at: string }>(
    `SELECT node_run_id, started_at FROM flowchart_node_runs WHERE flowchart_run_id = ? AND status = 'running'`,
    [flowchart_run_id],
  );
  const error: NodeRunError = { code: 'RUN_CANCELLED', message: 'the run was cancelled' };
  for (const r of running) {
    const started = Date.parse(r.started_at);
    await q.run(
      `UPDATE flowchart_node_runs SET status = 'cancelled', error = ?, finished_at = ?, duration_ms = ?
       WHERE node_run_id = ? AND status = 'running'`,
      [
        JSON.stringify(error),
        new Date(at).toISOString(),
        Number.isNaN(started) ? null : Math.max(0, at - started),
        r.node_run_id,
      ],
    );
  }
  return running.length;
}

export async function listNodeRuns(q: Queryable, flowchart_run_id: string): Promise<NodeRun[]> {
  const rows = await q.all(
    'SELECT * FROM flowchart_node_runs WHERE flowchart_run_id = ? ORDER BY execution_index LIMIT 10000',
    [flowchart_run_id],
  );
  return rows.map(toNodeRun);
}
