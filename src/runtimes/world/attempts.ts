/**
 * Attempt rows: one per `run_turn` try of a turn. At most one is `running` per world (a partial
 * unique index); it ends `committed` (with its turn), `failed` (no world state, invocations
 * kept) or `interrupted`. Each carries the seed's source summary fields.
 */
import { isNoemaError, NoemaError } from '../../core/errors.ts';
import type { Queryable } from '../../store/store.ts';

export interface AttemptRow {
  attempt_id: string;
  world_slug: string;
  attempted_turn: number;
  run_id: string;
  scenario_hash: string;
  status: 'running' | 'committed' | 'failed' | 'interrupted';
  failure: AttemptFailure | null;
  source_invocation_count: number;
  last_source_invocation_id: string | null;
  source_trace_summary: Record<string, unknown>;
  started_at: number;
  ended_at: number | null;
}

export interface AttemptFailure {
  code: string;
  message: string;
  node_id?: string;
  subject_entity_id?: string | null;
  source_invocation_id?: string | null;
}

function decode(r: Record<string, unknown>): AttemptRow {
  return {
    attempt_id: r.attempt_id as string,
    world_slug: r.world_slug as string,
    attempted_turn: Number(r.attempted_turn),
    run_id: r.run_id as string,
    scenario_hash: r.scenario_hash as string,
    status: r.status as AttemptRow['status'],
    failure: r.failure_json ? (JSON.parse(r.failure_json as string) as AttemptFailure) : null,
    source_invocation_count: Number(r.source_invocation_count),
    last_source_invocation_id: (r.last_source_invocation_id as string | null) ?? null,
    source_trace_summary: JSON.parse(r.source_trace_summary as string) as Record<string, unknown>,
    started_at: Number(r.started_at),
    ended_at: r.ended_at === null ? null : Number(r.ended_at),
  };
}

export function attemptInProgress(world_slug: string, attempt_id?: string): NoemaError {
  return new NoemaError('ATTEMPT_IN_PROGRESS', `world "${world_slug}" already has a running attempt`, {
    details: { world_slug, ...(attempt_id ? { attempt_id } : {}) },
    hint: 'wait for it to finish (get_attempt / list_attempts), then run_turn again',
    retryable: true,
    status: 409,
  });
}

export async function insertAttempt(
  q: Queryable,
  a: Pick<AttemptRow, 'attempt_id' | 'world_slug' | 'attempted_turn' | 'run_id' | 'scenario_hash'>,
): Promise<void> {
  try {
    await q.run(
      `INSERT INTO world_attempts (attempt_id, world_slug, attempted_turn, run_id, scenario_hash, status, started_at)
       VALUES (?, ?, ?, ?, ?, 'running', ?)`,
      [a.attempt_id, a.world_slug, a.attempted_turn, a.run_id, a.scenario_hash, Date.now()],
    );
  } catch (err) {
    if (isNoemaError(err) && err.code === 'CONFLICT') throw attemptInProgress(a.world_slug);
    throw err;
  }
}

export async function runningAttempt(q: Queryable, world_slug: string): Promise<AttemptRow | null> {
  const r = await q.get("SELECT * FROM world_attempts WHERE world_slug = ? AND status = 'running'", [
    world_slug,
  ]);
  return r ? decode(r) : null;
}

/** The running attempt whose run is `run_id`, if any. */
export async function runningAttemptOfRun(q: Queryable, run_id: string): Promise<AttemptRow | null> {
  const r = await q.get("SELECT * FROM world_attempts WHERE status = 'running' AND run_id = ?", [run_id]);
  return r ? decode(r) : null;
}

export async function getAttemptRow(q: Queryable, attempt_id: string): Promise<AttemptRow> {
  const r = await q.get('SELECT * FROM world_attempts WHERE attempt_id = ?', [attempt_id]);
  if (!r)
    throw new NoemaError('UNKNOWN_ATTEMPT', `no attempt ${attempt_id}`, {
      details: { attempt_id },
      status: 404,
    });
  return decode(r);
}

export async function listAttemptRows(
  q: Queryable,
  world_slug: string,
  limit: number,
): Promise<AttemptRow[]> {
  const rows = await q.all(
    'SELECT * FROM world_attempts WHERE world_slug = ? ORDER BY started_at DESC, attempt_id DESC LIMIT ?',
    [world_slug, limit],
  );
  return rows.map(decode);
}

/** The seed's attempt summary, computed from the attempt's invocations. */
export async function sourceSummary(q: Queryable, attempt_id: string) {
  const rows = await q.all<{ invocation_kind: string; status: string; n: number }>(
    'SELECT invocation_kind, status, COUNT(*) AS n FROM source_invocations WHERE attempt_id = ? GROUP BY invocation_kind, status',
    [attempt_id],
  );
  const last = await q.get<{ source_invocation_id: string }>(
    'SELECT source_invocation_id FROM source_invocations WHERE attempt_id = ? ORDER BY invocation_seq DESC LIMIT 1',
    [attempt_id],
  );
  const by_kind: Record<string, Record<string, number>> = {};
  let count = 0;
  for (const r of rows) {
    by_kind[r.invocation_kind] ??= {};
    by_kind[r.invocation_kind]![r.status] = Number(r.n);
    count += Number(r.n);
  }
  return {
    source_invocation_count: count,
    last_source_invocation_id: last?.source_invocation_id ?? null,
    source_trace_summary: { by_kind },
  };
}

/** Ends a running attempt as failed or interrupted; false when it was no longer running. */
export async function endAttempt(
  q: Queryable,
  attempt_id: string,
  status: 'failed' | 'interrupted',
  failure: AttemptFailure,
): Promise<boolean> {
  const s = await sourceSummary(q, attempt_id);
  const r = await q.run(
    `UPDATE world_attempts SET status = ?, failure_json = ?, source_invocation_count = ?, last_source_invocation_id = ?,
       source_trace_summary = ?, ended_at = ? WHERE attempt_id = ? AND status = 'running'`,
    [
      status,
      JSON.stringify(failure),
      s.source_invocation_count,
      s.last_source_invocation_id,
      JSON.stringify(s.source_trace_summary),
      Date.now(),
      attempt_id,
    ],
  );
  return r.changes === 1;
}
