/**
 * The attempts of a run: one row per claim (its claim epoch), naming the process that took it —
 * `worker_id` (the engine owner its lease names), `host`, `pid` — written in the claim's transaction.
 */
import { hostname } from 'node:os';
import type { Queryable, SqlValue } from '../../store/store.ts';

const HOST = hostname();

export interface RunAttempt {
  /** The claim epoch (`engine_runs.event_epoch` after the claim). */
  attempt: number;
  worker_id: string;
  host: string;
  pid: number;
  claimed_at: number;
}

export async function recordAttempt(
  tx: Queryable,
  runPk: number,
  attempt: number,
  owner: string,
  now: number,
): Promise<void> {
  await tx.run(
    `INSERT INTO engine_run_attempts (run_pk, attempt, worker_id, host, pid, claimed_at)
     VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (run_pk, attempt) DO NOTHING`,
    [runPk, attempt, owner, HOST, process.pid, now],
  );
}

/**
 * `recordAttempt` for the claim of `run_id` by `owner` made by the statement just before it in the
 * same transaction, issued without waiting for that claim's answer (one round trip where the store
 * pipelines): it records the row's epoch if the run is now running under `owner`'s lease — which a
 * run is after that claim, and only then (a run running under `owner` is one the claim takes again).
 */
export function recordClaimedAttempt(
  tx: Queryable,
  run_id: string,
  owner: string,
  now: number,
): Promise<unknown> {
  const { sql, params } = claimedAttemptStatement(run_id, owner, now);
  return tx.run(sql, params);
}

/** `recordClaimedAttempt`'s statement, for a caller that issues it itself. */
export function claimedAttemptStatement(
  run_id: string,
  owner: string,
  now: number,
): { sql: string; params: SqlValue[] } {
  return {
    sql: `INSERT INTO engine_run_attempts (run_pk, attempt, worker_id, host, pid, claimed_at)
     SELECT run_pk, event_epoch, ?, ?, ?, ? FROM engine_runs WHERE run_id = ? AND status = 'running' AND lease_owner = ?
     ON CONFLICT (run_pk, attempt) DO NOTHING`,
    params: [owner, HOST, process.pid, now, run_id, owner],
  };
}

/** A run's attempts, oldest first (at most the last 1000). */
export async function runAttempts(q: Queryable, run_id: string): Promise<RunAttempt[]> {
  const rows = await q.all<Record<string, unknown>>(
    `SELECT a.attempt, a.worker_id, a.host, a.pid, a.claimed_at FROM engine_run_attempts a
       JOIN engine_runs r ON r.run_pk = a.run_pk
      WHERE r.run_id = ? ORDER BY a.attempt DESC LIMIT 1000`,
    [run_id],
  );
  return rows.reverse().map((r) => ({
    attempt: Number(r.attempt),
    worker_id: r.worker_id as string,
    host: r.host as string,
    pid: Number(r.pid),
    claimed_at: Number(r.claimed_at),
  }));
}
