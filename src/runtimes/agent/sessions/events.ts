/**
 * The session event stream: `status`, `emotion`, `memory`, `thinking`, `text`, `tool_result`,
 * `ecs`, `memory_saved`, `execution_state`, `done`, `error` — each stored in `agent_session_events`
 * with a per-session sequence id (the SSE `id:`) before it is delivered, so a client resumes from
 * `Last-Event-ID` in any process. The process executing a run records it from the engine's events
 * (`recorder.ts`).
 */
import type { EngineEvent, Json } from '../../../engine/index.ts';
import type { Queryable, SqlValue, Store, Transaction } from '../../../store/store.ts';

export const SESSION_EVENT_NAMES = [
  'status',
  'emotion',
  'memory',
  'thinking',
  'text',
  'tool_result',
  'ecs',
  'memory_saved',
  'execution_state',
  'done',
  'error',
] as const;

export type SessionEventName = (typeof SESSION_EVENT_NAMES)[number];

/** Events delivered live and never stored (no id: a resumed stream gets the stored `text` instead). */
export const LIVE_EVENT_NAMES = ['text_delta'] as const;
export type LiveEventName = (typeof LIVE_EVENT_NAMES)[number];

export interface SessionEvent {
  /** Per-session sequence id (SSE `id:`); null for a live-only event (`text_delta`). */
  id: number | null;
  event: SessionEventName | LiveEventName;
  data: { session_id: string; run_id: string } & Record<string, unknown>;
  at: number;
}

const NODE_EVENTS = new Set<string>(['emotion', 'memory', 'thinking', 'text', 'tool_result', 'memory_saved']);

export async function appendSessionEvent(
  q: Queryable,
  session_id: string,
  run_id: string,
  event: SessionEventName,
  body: Record<string, unknown>,
): Promise<SessionEvent & { id: number }> {
  const at = Date.now();
  const data = { session_id, run_id, ...body };
  const row = await q.get<{ seq: number }>(
    `INSERT INTO agent_session_events (session_id, seq, run_id, event, data, at)
     SELECT ?, COALESCE(MAX(seq), 0) + 1, ?, ?, ?, ? FROM agent_session_events WHERE session_id = ?
     RETURNING seq`,
    [session_id, run_id, event, JSON.stringify(data), at, session_id],
  );
  return { id: Number(row!.seq), event, data, at };
}

type EventItems = ReadonlyArray<{ event: SessionEventName; body: Record<string, unknown> }>;

/**
 * Several events in one statement, at the next sequence ids in order (each row's offset is a literal
 * of the VALUES list, so the ids follow the list whatever order rows go in), and the events once its
 * rows (their ids) came back.
 */
function insertSessionEvents(
  session_id: string,
  run_id: string,
  items: EventItems,
): {
  sql: string;
  params: SqlValue[];
  stored: (rows: Array<{ seq: number }>) => Array<SessionEvent & { id: number }>;
} {
  const at = Date.now();
  const datas = items.map((it) => ({ session_id, run_id, ...it.body }));
  const params: SqlValue[] = [session_id, run_id, at, session_id];
  for (let i = 0; i < items.length; i++) params.push(items[i]!.event, JSON.stringify(datas[i]));
  return {
    sql: `INSERT INTO agent_session_events (session_id, seq, run_id, event, data, at)
     SELECT ?, top.seq + v.column1, ?, v.column2, v.column3, ?
       FROM (SELECT COALESCE(MAX(seq), 0) AS seq FROM agent_session_events WHERE session_id = ?) top,
            (VALUES ${items.map((_, i) => `(${i + 1}, ?, ?)`).join(', ')}) v
     RETURNING seq`,
    params,
    stored: (rows) => {
      const first = Math.min(...rows.map((r) => Number(r.seq)));
      return items.map((it, i) => ({ id: first + i, event: it.event, data: datas[i]!, at }));
    },
  };
}

/** `appendSessionEvent` for several events in one statement (`insertSessionEvents`). */
export async function appendSessionEvents(
  q: Queryable,
  session_id: string,
  run_id: string,
  items: EventItems,
): Promise<Array<SessionEvent & { id: number }>> {
  if (items.length <= 1)
    return items.length === 0
      ? []
      : [await appendSessionEvent(q, session_id, run_id, items[0]!.event, items[0]!.body)];
  const insert = insertSessionEvents(session_id, run_id, items);
  return insert.stored(await q.all<{ seq: number }>(insert.sql, insert.params));
}

/**
 * `appendSessionEvents` in a transaction, issued without waiting for its answer
 * (`Transaction.writeReturning`): `stored` gets the events with their ids once it answered, before
 * the transaction settles.
 */
export function issueSessionEvents(
  tx: Transaction,
  session_id: string,
  run_id: string,
  items: EventItems,
  stored: (events: Array<SessionEvent & { id: number }>) => void,
): void {
  if (items.length === 0) {
    stored([]);
    return;
  }
  const insert = insertSessionEvents(session_id, run_id, items);
  tx.writeReturning<{ seq: number }>(insert.sql, insert.params, (rows) => stored(insert.stored(rows)));
}

/** Events after `after` (a Last-Event-ID), oldest first, at most `limit`. */
export async function listSessionEvents(
  q: Queryable,
  session_id: string,
  after = 0,
  limit = 500,
): Promise<Array<SessionEvent & { id: number }>> {
  const rows = await q.all<{ seq: number; event: SessionEventName; data: string; at: number }>(
    'SELECT seq, event, data, at FROM agent_session_events WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT ?',
    [session_id, after, Math.min(1000, Math.max(1, limit))],
  );
  return rows.map((r) => ({ id: Number(r.seq), event: r.event, data: JSON.parse(r.data), at: Number(r.at) }));
}

/** Maps an engine event of the run to a session event (or nothing). */
export function sessionEventOf(
  e: EngineEvent,
): { event: SessionEventName; body: Record<string, unknown> } | null {
  if (e.type === 'node.started')
    return {
      event: 'status',
      body: { phase: e.node_type, node_id: e.node_id, step: e.step, attempt: e.attempt },
    };
  if (e.type === 'node.finished' && e.status === 'retry_generation')
    return {
      event: 'status',
      body: { phase: 'retry', node_id: e.node_id, step: e.step, error: e.error ?? null },
    };
  if (e.type === 'node.updated') {
    const d = e.data as { event?: string; data?: Record<string, Json> } | null;
    if (d && typeof d.event === 'string' && NODE_EVENTS.has(d.event))
      return { event: d.event as SessionEventName, body: { ...(d.data ?? {}) } };
  }
  return null;
}

/** Followers in this process of each session (`tailEvents`), woken when its events are written here. */
const followers = new Map<string, Set<() => void>>();

/** Calls `wake` whenever this process writes events of `session_id`; returns the un-registration. */
export function onSessionEvents(session_id: string, wake: () => void): () => void {
  let set = followers.get(session_id);
  if (!set) {
    set = new Set();
    followers.set(session_id, set);
  }
  set.add(wake);
  return () => {
    set.delete(wake);
    if (set.size === 0 && followers.get(session_id) === set) followers.delete(session_id);
  };
}

export function wakeFollowers(session_id: string): void {
  const set = followers.get(session_id);
  if (set) for (const wake of [...set]) wake();
}

/** Carries, with each commit that stored events of a session, its id to other processes' followers. */
export const SESSION_EVENTS_CHANNEL = 'noema_session_events';

/** Tells other processes' followers of `session_id` with `tx`'s commit, where the store can. */
export async function announce(store: Store, tx: Transaction, session_id: string): Promise<void> {
  if (!store.capabilities.supportsListenNotify) return;
  if (tx.notifyWithCommit) tx.notifyWithCommit(SESSION_EVENTS_CHANNEL, session_id);
  else await tx.notify(SESSION_EVENTS_CHANNEL, session_id).catch(() => {});
}

const listening = new WeakMap<Store, Promise<unknown>>();

/**
 * Wakes this process's followers (`onSessionEvents`) when another process stores events of their
 * session too (LISTEN, one per store and process), not only at their next poll. Without
 * notifications (SQLite), or while the listener is down, the polls find them.
 */
export function listenForSessionEvents(store: Store): Promise<unknown> {
  let p = listening.get(store);
  if (!p) {
    p =
      store.capabilities.supportsListenNotify && store.listen
        ? store.listen(SESSION_EVENTS_CHANNEL, wakeFollowers).catch(() => listening.delete(store))
        : Promise.resolve();
    listening.set(store, p);
  }
  return p;
}
