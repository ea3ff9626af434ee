/**
 * The session event stream: `status`, `emotion`, `memory`, `thinking`, `text`, `tool_result`,
 * `ecs`, `memory_saved`, `execution_state`, `done`, `error` — each stored in `agent_session_events`
 * with a per-session sequence id (the SSE `id:`) before it is delivered, so a client resumes from
 * `Last-Event-ID` in any process. The process executing a run records it from the engine's events.
 */
import type { EngineEvent, Json } from '../../../engine/index.ts';
import type { Queryable, Store } from '../../../store/store.ts';

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

export interface SessionEvent {
  /** Per-session sequence id (SSE `id:`). */
  id: number;
  event: SessionEventName;
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
): Promise<SessionEvent> {
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

/** Events after `after` (a Last-Event-ID), oldest first, at most `limit`. */
export async function listSessionEvents(
  q: Queryable,
  session_id: string,
  after = 0,
  limit = 500,
): Promise<SessionEvent[]> {
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

/**
 * Records a run's events in order. Engine listeners are synchronous, so events queue up and are
 * written in batches — one transaction per batch, not per event — then delivered. A write failure
 * never breaks the run; `flush` waits for the queue and reports it.
 */
export class SessionEventRecorder {
  readonly #store: Store;
  readonly #deliver: (e: SessionEvent) => void;
  readonly session_id: string;
  readonly run_id: string;
  #pending: Array<{ event: SessionEventName; body: Record<string, unknown> }> = [];
  #draining: Promise<void> | null = null;
  #error: unknown = null;

  constructor(store: Store, session_id: string, run_id: string, deliver: (e: SessionEvent) => void) {
    this.#store = store;
    this.session_id = session_id;
    this.run_id = run_id;
    this.#deliver = deliver;
  }

  record(event: SessionEventName, body: Record<string, unknown>): Promise<void> {
    this.#pending.push({ event, body });
    this.#draining ??= this.#drain();
    return this.#draining;
  }

  async #drain(): Promise<void> {
    while (this.#pending.length > 0) {
      const batch = this.#pending.splice(0);
      try {
        const written = await this.#store.transaction(async (tx) => {
          const out: SessionEvent[] = [];
          for (const b of batch)
            out.push(await appendSessionEvent(tx, this.session_id, this.run_id, b.event, b.body));
          return out;
        });
        for (const e of written) this.#deliver(e);
      } catch (err) {
        this.#error ??= err;
      }
    }
    // Cleared in the same synchronous step as the final check: no event can slip in between.
    this.#draining = null;
  }

  fromEngine(e: EngineEvent & { origin?: string }): void {
    if (e.origin) return; // another process executes (and records) that part of the run
    const mapped = sessionEventOf(e);
    if (mapped) void this.record(mapped.event, mapped.body);
  }

  async flush(): Promise<void> {
    while (this.#draining) await this.#draining;
    if (this.#error) throw this.#error;
  }
}
