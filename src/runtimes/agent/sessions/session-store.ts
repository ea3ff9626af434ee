/**
 * Session rows (`agent_sessions`) and the dialogue history (`agent_session_messages`). The session
 * status is the one-message-at-a-time lock: `idle → running` is a compare-and-set, so of two
 * concurrent messages exactly one runs and the other gets SESSION_BUSY. The claim is durable and
 * names its owner with a lease (`claim_owner`, `claim_expires_at`): a claim whose run was never
 * created is released by another process only once that lease expired.
 */
import { NoemaError } from '../../../core/errors.ts';
import { uuidv7 } from '../../../core/index.ts';
import type { Queryable } from '../../../store/store.ts';
import type { ChatMessage } from '../state/execution-state.ts';

export type SessionStatus = 'idle' | 'running' | 'waiting';

export interface SessionRow {
  session_id: string;
  agent_hash: string;
  user_id: string;
  status: SessionStatus;
  run_id: string | null;
  turn_count: number;
  created_at: number;
  updated_at: number;
  /** The process (engine owner) that claimed the turn in flight, and until when the claim holds. */
  claim_owner: string | null;
  claim_expires_at: number | null;
  /** The ReasoningContext (JSON) the last finished turn ended with. */
  reasoning: string | null;
}

export async function insertSession(q: Queryable, agent_hash: string, user_id: string): Promise<SessionRow> {
  const now = Date.now();
  const row: SessionRow = {
    session_id: uuidv7(),
    agent_hash,
    user_id,
    status: 'idle',
    run_id: null,
    turn_count: 0,
    created_at: now,
    updated_at: now,
    claim_owner: null,
    claim_expires_at: null,
    reasoning: null,
  };
  await q.run(
    `INSERT INTO agent_sessions (session_id, agent_hash, user_id, status, run_id, turn_count, created_at, updated_at)
     VALUES (?, ?, ?, 'idle', NULL, 0, ?, ?)`,
    [row.session_id, agent_hash, user_id, now, now],
  );
  return row;
}

function rowOf(r: Record<string, unknown>): SessionRow {
  return {
    ...(r as unknown as SessionRow),
    turn_count: Number(r.turn_count),
    created_at: Number(r.created_at),
    updated_at: Number(r.updated_at),
    claim_owner: (r.claim_owner as string | null) ?? null,
    claim_expires_at: r.claim_expires_at == null ? null : Number(r.claim_expires_at),
    reasoning: (r.reasoning as string | null) ?? null,
  };
}

export async function findSession(q: Queryable, session_id: string): Promise<SessionRow | null> {
  const r = await q.get('SELECT * FROM agent_sessions WHERE session_id = ?', [session_id]);
  return r ? rowOf(r) : null;
}

/** Sessions with a turn in flight (here or anywhere), least recently updated first. */
export async function runningSessions(q: Queryable, limit: number): Promise<SessionRow[]> {
  const rows = await q.all(
    "SELECT * FROM agent_sessions WHERE status = 'running' ORDER BY updated_at LIMIT ?",
    [limit],
  );
  return rows.map(rowOf);
}

/**
 * Whether a session is left `running` with nothing that will close it: its run stopped (the process
 * died between the run's last step and the turn's closing), or a claim whose run never came expired.
 * One indexed query: a long-running process asks it on each reclaim pass, before loading the runtime.
 */
export async function hasUnsettledTurns(q: Queryable, now = Date.now()): Promise<boolean> {
  const r = await q.get(
    `SELECT 1 AS x FROM agent_sessions s LEFT JOIN engine_runs r ON r.run_id = s.run_id
      WHERE s.status = 'running'
        AND ((r.run_id IS NULL AND COALESCE(s.claim_expires_at, 0) < ?)
          OR r.status IN ('completed', 'failed', 'waiting', 'cancelled'))
      LIMIT 1`,
    [now],
  );
  return r != null;
}

/** The session whose turn in flight is `run_id`, if any (the running sessions are few: by status). */
export async function runningSessionOfRun(q: Queryable, run_id: string): Promise<SessionRow | null> {
  const r = await q.get("SELECT * FROM agent_sessions WHERE status = 'running' AND run_id = ?", [run_id]);
  return r ? rowOf(r) : null;
}

export async function getSessionOrThrow(q: Queryable, session_id: string): Promise<SessionRow> {
  const s = await findSession(q, session_id);
  if (!s)
    throw new NoemaError('UNKNOWN_SESSION', `no session ${session_id}`, {
      status: 404,
      details: { session_id },
    });
  return s;
}

export interface Claim {
  run_id: string;
  /** The claiming process (its engine owner id). */
  owner: string;
  /** How long the claim holds without a run (a lease, like the engine's). */
  lease_ms: number;
}

/**
 * `from → running` for `claim.run_id`, owned by `claim.owner` until its lease expires: the claimed
 * row, or null when the session is not in `from` (another message holds it). One conditional
 * UPDATE: exclusive across processes on both stores.
 */
export async function claimSession(
  q: Queryable,
  session_id: string,
  from: SessionStatus,
  claim: Claim,
): Promise<SessionRow | null> {
  const now = Date.now();
  const r = await q.get(
    `UPDATE agent_sessions SET status = 'running', run_id = ?, claim_owner = ?, claim_expires_at = ?, updated_at = ?
     WHERE session_id = ? AND status = ? RETURNING *`,
    [claim.run_id, claim.owner, now + claim.lease_ms, now, session_id, from],
  );
  return r ? rowOf(r) : null;
}

/**
 * Frees a session whose claimed run was never created (its process died right after the claim) —
 * only when the claim's lease expired, so a claim another live process is about to turn into a run
 * is never taken away. True when it freed the session.
 */
export async function releaseExpiredClaim(
  q: Queryable,
  session_id: string,
  run_id: string,
  now = Date.now(),
): Promise<boolean> {
  const r = await q.run(
    `UPDATE agent_sessions SET status = 'idle', claim_owner = NULL, claim_expires_at = NULL, updated_at = ?
     WHERE session_id = ? AND run_id = ? AND status = 'running' AND (claim_expires_at IS NULL OR claim_expires_at < ?)`,
    [now, session_id, run_id, now],
  );
  return r.changes === 1;
}

/** Which claim a turn runs under: the claim's owner and lease end, as `claimSession` wrote them. */
export type ClaimRef = Pick<SessionRow, 'claim_owner' | 'claim_expires_at'>;

/**
 * Closes the turn `run_id` claimed by `claim`: `running → status` (idle or waiting), dropping the
 * claim; `turnDone` counts a finished turn, `reasoning` stores the ReasoningContext the next message
 * starts from — only if the session is still running that turn under that claim. False when it is
 * not: another process (or driver) closed it first, or the session moved on (a later message, or an
 * ECS continuation of the same run, which claims anew). The one closing of a turn is this
 * conditional write, so of closers racing (a background settle and the next message's, in two
 * processes) exactly one writes the transcript's answer and the closing event, on both stores.
 */
export async function closeTurn(
  q: Queryable,
  session_id: string,
  run_id: string,
  claim: ClaimRef,
  status: Exclude<SessionStatus, 'running'>,
  turnDone = false,
  reasoning?: unknown,
): Promise<boolean> {
  const r = await q.run(
    `UPDATE agent_sessions SET status = ?, updated_at = ?, turn_count = turn_count + ?,
       reasoning = COALESCE(?, reasoning), claim_owner = NULL, claim_expires_at = NULL
     WHERE session_id = ? AND run_id = ? AND status = 'running'
       AND COALESCE(claim_owner, '') = ? AND COALESCE(claim_expires_at, -1) = ?`,
    [
      status,
      Date.now(),
      turnDone ? 1 : 0,
      reasoning == null ? null : JSON.stringify(reasoning),
      session_id,
      run_id,
      claim.claim_owner ?? '',
      claim.claim_expires_at ?? -1,
    ],
  );
  return r.changes === 1;
}

export async function appendMessage(
  q: Queryable,
  session_id: string,
  run_id: string,
  m: Pick<ChatMessage, 'role' | 'content'>,
): Promise<void> {
  await q.run(
    `INSERT INTO agent_session_messages (session_id, seq, run_id, role, content, at)
     SELECT ?, COALESCE(MAX(seq), 0) + 1, ?, ?, ?, ? FROM agent_session_messages WHERE session_id = ?`,
    [session_id, run_id, m.role, m.content, Date.now(), session_id],
  );
}

/** The runs of the session's messages (each message is answered by a run of its own), at most `limit`. */
export async function sessionRunIds(q: Queryable, session_id: string, limit: number): Promise<string[]> {
  const rows = await q.all<{ run_id: string }>(
    `SELECT DISTINCT run_id FROM agent_session_messages WHERE session_id = ? AND run_id IS NOT NULL LIMIT ?`,
    [session_id, limit],
  );
  return rows.map((r) => r.run_id);
}

/** The newest `limit` messages of the session, oldest first. */
export async function recentMessages(
  q: Queryable,
  session_id: string,
  limit: number,
): Promise<ChatMessage[]> {
  if (limit <= 0) return [];
  const rows = await q.all<{ role: 'user' | 'assistant'; content: string; at: number }>(
    'SELECT role, content, at FROM agent_session_messages WHERE session_id = ? ORDER BY seq DESC LIMIT ?',
    [session_id, limit],
  );
  return rows
    .reverse()
    .map((r) => ({ role: r.role, content: r.content, timestamp: new Date(Number(r.at)).toISOString() }));
}
