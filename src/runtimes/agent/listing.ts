/**
 * Bounded, cursor-paginated lists of the runtime's records, newest first, for the resource catalog:
 * agent definitions, sessions and user profiles. Cursors are opaque text; a malformed one is
 * INVALID_INPUT.
 */
import { invalidInput } from '../../core/errors.ts';
import type { Queryable, SqlValue } from '../../store/store.ts';

export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

function cursorParts(cursor: string | undefined): [number, string] | null {
  if (cursor === undefined) return null;
  const m = /^(\d{1,16}):(.{1,256})$/s.exec(cursor);
  if (!m) throw invalidInput('cursor is not one this list returned', { cursor: cursor.slice(0, 64) });
  return [Number(m[1]), m[2]!];
}

async function page<T extends Record<string, unknown>>(
  q: Queryable,
  sql: { select: string; where: string[]; params: SqlValue[]; time: string; id: string },
  limit: number,
  cursor: string | undefined,
): Promise<Page<T>> {
  const where = [...sql.where];
  const params = [...sql.params];
  const c = cursorParts(cursor);
  if (c) {
    where.push(`(${sql.time} < ? OR (${sql.time} = ? AND ${sql.id} < ?))`);
    params.push(c[0], c[0], c[1]);
  }
  const rows = await q.all<T>(
    `${sql.select} ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY ${sql.time} DESC, ${sql.id} DESC LIMIT ?`,
    [...params, limit + 1],
  );
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  return {
    items,
    next_cursor: rows.length > limit && last ? `${Number(last[sql.time])}:${String(last[sql.id])}` : null,
  };
}

export function listAgentDefinitions(q: Queryable, o: { label?: string; limit: number; cursor?: string }) {
  return page<Record<string, unknown>>(
    q,
    {
      select: 'SELECT hash, label, created_at FROM agent_definitions',
      where: o.label ? ['label = ?'] : [],
      params: o.label ? [o.label] : [],
      time: 'created_at',
      id: 'hash',
    },
    o.limit,
    o.cursor,
  );
}

export function listSessions(
  q: Queryable,
  o: { user_id?: string; agent_hash?: string; status?: string; limit: number; cursor?: string },
) {
  const where: string[] = [];
  const params: SqlValue[] = [];
  for (const k of ['user_id', 'agent_hash', 'status'] as const) {
    if (o[k] !== undefined) {
      where.push(`${k} = ?`);
      params.push(o[k]!);
    }
  }
  return page<Record<string, unknown>>(
    q,
    {
      select:
        'SELECT session_id, agent_hash, user_id, status, run_id, turn_count, created_at, updated_at FROM agent_sessions',
      where,
      params,
      time: 'created_at',
      id: 'session_id',
    },
    o.limit,
    o.cursor,
  );
}

export function listProfiles(q: Queryable, o: { limit: number; cursor?: string }) {
  return page<Record<string, unknown>>(
    q,
    {
      select: 'SELECT user_id, interaction_count, synthesis_version, revision, updated_at FROM user_profiles',
      where: [],
      params: [],
      time: 'updated_at',
      id: 'user_id',
    },
    o.limit,
    o.cursor,
  );
}
