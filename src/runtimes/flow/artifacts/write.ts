/**
 * Writing `node_artifacts` with the node's retention controls enforced on write (seed 003):
 * `ttl` stamps an expiry and drops the node's expired artifacts, `max_count` keeps the node's newest
 * N, `ttl_max_count` does both, `forever` keeps everything. The periodic sweep is in sweep.ts.
 */
import type { Json } from '../../../engine/index.ts';
import type { SqlValue, Transaction } from '../../../store/store.ts';
import {
  DEFAULT_RETENTION_MAX_COUNT,
  DEFAULT_RETENTION_TTL_SECONDS,
  type FlowNodeType,
  type RetentionMode,
} from '../types.ts';

export interface Retention {
  retention_mode: RetentionMode;
  retention_ttl_seconds: number;
  retention_max_count: number;
}

export function retentionOf(config: Record<string, Json>): Retention {
  return {
    retention_mode: (config.retention_mode as RetentionMode | undefined) ?? 'forever',
    retention_ttl_seconds: Number(config.retention_ttl_seconds ?? DEFAULT_RETENTION_TTL_SECONDS),
    retention_max_count: Number(config.retention_max_count ?? DEFAULT_RETENTION_MAX_COUNT),
  };
}

export interface NewNodeArtifact {
  flowchart_id: string;
  flowchart_run_id: string;
  flowchart_node_id: string;
  flowchart_node_type: FlowNodeType;
  node_run_id: string;
  artifact_type: string;
  plan_id?: number | null;
  memory_id?: number | null;
  milestone_id?: number | null;
  payload: Json;
  request_id: string;
  correlation_id: string | null;
}

type Statement = { sql: string; params: SqlValue[] };

/**
 * The artifact's insert — nothing when the node run already has one of its type (a node run
 * re-executed after a crash) — and its node's retention deletes: statements that change nothing
 * when run again, to commit in a transaction of their own or with the run's next one.
 */
export function nodeArtifactStatements(
  a: NewNodeArtifact,
  retention: Retention,
  nowMs: number,
): { insert: Statement; retention: Statement[] } {
  const ttl = retention.retention_mode === 'ttl' || retention.retention_mode === 'ttl_max_count';
  const capped = retention.retention_mode === 'max_count' || retention.retention_mode === 'ttl_max_count';
  const insert = {
    sql: `INSERT INTO node_artifacts (flowchart_id, flowchart_run_id, flowchart_node_id, flowchart_node_type, node_run_id,
       artifact_type, plan_id, memory_id, milestone_id, payload, request_id, correlation_id, retention_mode,
       created_at_ms, expires_at_ms)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (node_run_id, artifact_type) DO NOTHING`,
    params: [
      a.flowchart_id,
      a.flowchart_run_id,
      a.flowchart_node_id,
      a.flowchart_node_type,
      a.node_run_id,
      a.artifact_type,
      a.plan_id ?? null,
      a.memory_id ?? null,
      a.milestone_id ?? null,
      JSON.stringify(a.payload),
      a.request_id,
      a.correlation_id,
      retention.retention_mode,
      nowMs,
      ttl ? nowMs + retention.retention_ttl_seconds * 1000 : null,
    ],
  };
  const deletes: Statement[] = [];
  if (ttl)
    deletes.push({
      sql: 'DELETE FROM node_artifacts WHERE flowchart_id = ? AND flowchart_node_id = ? AND expires_at_ms IS NOT NULL AND expires_at_ms <= ?',
      params: [a.flowchart_id, a.flowchart_node_id, nowMs],
    });
  if (capped)
    // Everything older than the node's Nth newest goes: one index range read and range delete (none
    // while the node has fewer than N, the bound then being NULL).
    deletes.push({
      sql: `DELETE FROM node_artifacts WHERE flowchart_id = ? AND flowchart_node_id = ? AND artifact_id < (
         SELECT artifact_id FROM node_artifacts WHERE flowchart_id = ? AND flowchart_node_id = ?
          ORDER BY artifact_id DESC LIMIT 1 OFFSET ?)`,
      params: [
        a.flowchart_id,
        a.flowchart_node_id,
        a.flowchart_id,
        a.flowchart_node_id,
        retention.retention_max_count - 1,
      ],
    });
  return { insert, retention: deletes };
}

/**
 * Issues the artifact's insert and its node's retention deletes in `tx` without waiting for them (a
 * store that pipelines sends them, and the COMMIT, in one round trip): `inserted` is told the new
 * artifact's id as the insert answers, or null when the node run already had one of its type (a node
 * run re-executed after a crash), which `findNodeArtifact` then finds once the transaction has committed.
 */
export function issueNodeArtifact(
  tx: Transaction,
  a: NewNodeArtifact,
  retention: Retention,
  nowMs: number,
  inserted: (artifact_id: number | null) => void,
): void {
  const w = nodeArtifactStatements(a, retention, nowMs);
  // The retention deletes run after the insert: a node's newest N counts the new artifact.
  tx.writeReturning<{ artifact_id: number }>(
    `${w.insert.sql} RETURNING artifact_id`,
    w.insert.params,
    (rows) => inserted(rows[0] === undefined ? null : Number(rows[0].artifact_id)),
  );
  for (const d of w.retention) tx.write(d.sql, d.params);
}
