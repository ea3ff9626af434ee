/**
 * Session rows (`agent_sessions`) and the dialogue history (`agent_session_messages`). The session
 * status is the one-message-at-a-time lock: `idle → running` is a compare-and-set, so of two
 * concurrent messages exactly one runs and the other gets SESSION_BUSY.
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
  };
}

export async function findSession(q: Queryable, session_id: string): Promise<SessionRow | null> {
  const r = await q.get('SELECT * FROM agent_sessions WHERE session_id = ?', [session_id]);
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

/** `from → running` for `run_id`; false when the session is not in `from` (another message holds it). */
export async function claimSession(
  q: Queryable,
  session_id: string,
  from: SessionStatus,
  run_id: string,
): Promise<boolean> {
  const r = await q.run(
    "UPDATE agent_sessions SET status = 'running', run_id = ?, updated_at = ? WHERE session_id = ? AND status = ?",
    [run_id, Date.now(), session_id, from],
  );
  return r.changes === 1;
}

export async function setSessionStatus(
  q: Queryable,
  session_id: string,
  run_id: string,
  status: SessionStatus,
  turnDone = false,
): Promise<void> {
  await q.run(
    `UPDATE agent_sessions SET status = ?, updated_at = ?, turn_count = turn_count + ? WHERE session_id = ? AND run_id = ?`,
    [status, Date.now(), turnDone ? 1 : 0, session_id, run_id],
  );
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
