/**
 * The session event stream: `status`, `emotion`, `memory`, `thinking`, `text`, `tool_result`,
 * `ecs`, `memory_saved`, `execution_state`, `done`, `error` — each stored in `agent_session_events`
 * with a per-session sequence id (the SSE `id:`) before it is delivered, so a client resumes from
 * `Last-Event-ID` in any process. The process executing a run records it from the engine's events.
 */
import type { CommitParticipant, EngineEvent, JoinedCommit, Json, RunStop } from '../../../engine/index.ts';
import type { Queryable, Store, Transaction } from '../../../store/store.ts';

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

/**
 * `appendSessionEvent` for several events in one statement: the next sequence ids, in order (each
 * row's offset is a literal of the VALUES list, so the ids follow the list whatever order rows go in).
 */
export async function appendSessionEvents(
  q: Queryable,
  session_id: string,
  run_id: string,
  items: ReadonlyArray<{ event: SessionEventName; body: Record<string, unknown> }>,
): Promise<Array<SessionEvent & { id: number }>> {
  if (items.length <= 1)
    return items.length === 0
      ? []
      : [await appendSessionEvent(q, session_id, run_id, items[0]!.event, items[0]!.body)];
  const at = Date.now();
  const datas = items.map((it) => ({ session_id, run_id, ...it.body }));
  const params: string[] = [];
  for (let i = 0; i < items.length; i++) params.push(items[i]!.event, JSON.stringify(datas[i]));
  const rows = await q.all<{ seq: number }>(
    `INSERT INTO agent_session_events (session_id, seq, run_id, event, data, at)
     SELECT ?, top.seq + v.column1, ?, v.column2, v.column3, ?
       FROM (SELECT COALESCE(MAX(seq), 0) AS seq FROM agent_session_events WHERE session_id = ?) top,
            (VALUES ${items.map((_, i) => `(${i + 1}, ?, ?)`).join(', ')}) v
     RETURNING seq`,
    [session_id, run_id, at, session_id, ...params],
  );
  const first = Math.min(...rows.map((r) => Number(r.seq)));
  return items.map((it, i) => ({ id: first + i, event: it.event, data: datas[i]!, at }));
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

function wakeFollowers(session_id: string): void {
  const set = followers.get(session_id);
  if (set) for (const wake of [...set]) wake();
}

/** Carries, with each commit that stored events of a session, its id to other processes' followers. */
export const SESSION_EVENTS_CHANNEL = 'noema_session_events';

/** Tells other processes' followers of `session_id` with `tx`'s commit, where the store can. */
async function announce(store: Store, tx: Transaction, session_id: string): Promise<void> {
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

/** Adds a closing event, written after the queued ones in the same statement. */
export type AddEvent = (event: SessionEventName, body: Record<string, unknown>) => Promise<void>;
/**
 * Hands over a statement issued and not awaited (or a check of its answer): the events are issued
 * after it without waiting for its answer, and it is awaited before theirs, so its failure is the
 * transaction's.
 */
export type Issued = (statement: Promise<unknown>) => void;

/**
 * A turn's closing written in the transaction that ends its run (`SessionEventRecorder.closeWithRun`):
 * its writes and events, and what it reports once that transaction committed.
 */
export type ClosingWithRun<R> = (
  tx: Transaction,
  stop: RunStop,
  add: AddEvent,
  issued: Issued,
) => Promise<R | undefined>;

/** How long a progress event may wait to be written with the rest of its step. */
export const EVENT_BATCH_MS = 50;

type Queued =
  | { live: false; event: SessionEventName; body: Record<string, unknown> }
  | { live: true; event: LiveEventName; body: Record<string, unknown> };

/**
 * Records a turn's events in order. Engine listeners are synchronous, so events queue up and are
 * written in batches, one transaction each: at most EVENT_BATCH_MS after the first of them (so a
 * slow model call still shows its `status` at once), or with the turn's closing transaction,
 * whichever comes first. A stored event is delivered only after its batch committed.
 * Live-only events (`text_delta`) are never written: they are delivered in order after the stored
 * events before them. A write failure never breaks the run; `flush` waits for the queue and
 * reports it.
 */
export class SessionEventRecorder {
  readonly #store: Store;
  readonly #deliver: (e: SessionEvent) => void;
  readonly session_id: string;
  readonly run_id: string;
  #pending: Queued[] = [];
  #draining: Promise<void> | null = null;
  #timer: ReturnType<typeof setTimeout> | null = null;
  /** Something queued must be written now (a finished step, a live event, a flush). */
  #urgent = false;
  #error: unknown = null;
  /** A transaction writing this recorder's events, until it ends (see `participant`). */
  #writing: Promise<void> | null = null;

  /** The id of the last stored event delivered (0 before any): where relaying resumes. */
  lastDelivered = 0;

  /** The closing to write with the run's end (`closeWithRun`), and its report once that committed. */
  #closing: ClosingWithRun<unknown> | null = null;
  #closed: { report: unknown } | null = null;

  constructor(store: Store, session_id: string, run_id: string, deliver: (e: SessionEvent) => void) {
    this.#store = store;
    this.session_id = session_id;
    this.run_id = run_id;
    this.#deliver = (e) => {
      if (e.id !== null && e.id > this.lastDelivered) this.lastDelivered = e.id;
      deliver(e);
    };
  }

  /** Delivers a stored event another process recorded (it executes the run), each once, in order. */
  relay(e: SessionEvent & { id: number }): void {
    if (e.id > this.lastDelivered) this.#deliver(e);
  }

  /** Queues a stored event, written with the rest of its step (or now, with `now`). */
  record(event: SessionEventName, body: Record<string, unknown>, now = false): Promise<void> {
    this.#pending.push({ live: false, event, body });
    return now ? this.#drainNow() : this.#drainSoon();
  }

  /** A live-only event: delivered right after the stored events queued before it, never stored. */
  live(event: LiveEventName, body: Record<string, unknown>): void {
    if (this.#pending.length === 0 && !this.#draining) {
      this.#deliver(this.#liveEvent(event, body));
      return;
    }
    this.#pending.push({ live: true, event, body });
    void this.#drainNow();
  }

  #liveEvent(event: LiveEventName, body: Record<string, unknown>): SessionEvent {
    return {
      id: null,
      event,
      data: { session_id: this.session_id, run_id: this.run_id, ...body },
      at: Date.now(),
    };
  }

  #drainSoon(): Promise<void> {
    if (this.#draining) return this.#draining;
    this.#timer ??= setTimeout(() => void this.#drainNow(), EVENT_BATCH_MS);
    return Promise.resolve();
  }

  #drainNow(): Promise<void> {
    if (this.#timer) {
      clearTimeout(this.#timer);
      this.#timer = null;
    }
    this.#urgent = true;
    this.#draining ??= this.#drain();
    return this.#draining;
  }

  async #drain(): Promise<void> {
    // Never done synchronously: `#drainNow` stores this promise after the call returns, and the end
    // below must clear it after that, not before.
    await null;
    while (this.#pending.length > 0 && this.#urgent) {
      this.#urgent = false;
      if (!this.#pending.some((q) => !q.live)) {
        for (const b of this.#pending.splice(0)) if (b.live) this.#deliver(this.#liveEvent(b.event, b.body));
        continue;
      }
      const batch: Queued[] = [];
      let release = () => {};
      try {
        const written = await this.#store
          .transaction(async (tx) => {
            // Taken once this transaction holds its connection: a run transaction that joined before it
            // (writing on another connection) ends first, so sequence ids follow the order of events.
            while (this.#writing) await this.#writing;
            release = this.#hold();
            batch.push(...this.#pending.splice(0)); // (a body run again writes the whole batch again)
            return this.#append(tx, batch);
          })
          .finally(() => release());
        this.#delivered(batch, written);
      } catch (err) {
        this.#error ??= err;
      }
    }
    // Cleared in the same synchronous step as the final check: no event can slip in between.
    this.#draining = null;
    // Events of the next step that arrived meanwhile wait for their step (or the timer).
    if (this.#pending.length > 0) this.#timer ??= setTimeout(() => void this.#drainNow(), EVENT_BATCH_MS);
  }

  /**
   * Marks a transaction writing this recorder's events until the returned release: another one (on
   * another connection) waits for its end before it computes the next sequence id.
   */
  #hold(): () => void {
    const settled = Promise.withResolvers<void>();
    this.#writing = settled.promise;
    return () => {
      if (this.#writing === settled.promise) this.#writing = null;
      settled.resolve();
    };
  }

  /** After the commit that wrote `written` (the stored ones of `batch`, in order): delivers `batch`. */
  #delivered(batch: readonly Queued[], written: readonly SessionEvent[]): void {
    if (written.length > 0) wakeFollowers(this.session_id);
    let i = 0;
    for (const b of batch) this.#deliver(b.live ? this.#liveEvent(b.event, b.body) : written[i++]!);
  }

  async #append(tx: Transaction, batch: readonly Queued[]): Promise<SessionEvent[]> {
    const out = await appendSessionEvents(
      tx,
      this.session_id,
      this.run_id,
      batch.filter((b) => !b.live),
    );
    if (out.length > 0) await announce(this.#store, tx, this.session_id);
    return out;
  }

  /**
   * Writes the queued events inside a transaction of the run executing here (the engine's
   * `commitWith`): a step's events commit with the step, so a process killed after a step committed
   * leaves none of them behind. Delivered once that transaction committed; queued again if it rolled back.
   */
  readonly participant: CommitParticipant = {
    pending: () => this.#pending.some((q) => !q.live),
    join: (tx) => this.#joinRun(tx, null),
    stop: (tx, stop) => this.#joinRun(tx, stop),
  };

  /**
   * The participant's writes: the queued events and, in the transaction that ends the run (`stop`),
   * the closing given to `closeWithRun` with the events it adds.
   */
  async #joinRun(tx: Transaction, stop: RunStop | null): Promise<JoinedCommit | null> {
    const closing = stop === null ? null : this.#closing;
    if (closing === null && !this.participant.pending()) return null;
    // A drain writing on another connection ends first (on one connection it cannot be writing now).
    while (this.#writing) await this.#writing;
    const queued = this.#pending.splice(0);
    const end = this.#hold();
    const batch: Queued[] = [...queued];
    let written: SessionEvent[];
    let report: unknown;
    try {
      if (closing === null) written = await this.#append(tx, queued);
      else {
        const statements: Promise<unknown>[] = [];
        report = await closing(
          tx,
          stop!,
          (event, body) => {
            batch.push({ live: false, event, body });
            return Promise.resolve();
          },
          (statement) => {
            statement.catch(() => {});
            statements.push(statement);
          },
        );
        const appending = this.#append(tx, batch);
        appending.catch(() => {});
        for (const st of statements) await st;
        written = await appending;
      }
    } catch (err) {
      this.#pending.unshift(...queued);
      end();
      throw err;
    }
    return {
      committed: () => {
        end();
        // A closing that wrote nothing (undefined) leaves the turn to close after the run.
        if (closing !== null && report !== undefined) this.#closed = { report };
        this.#delivered(batch, written);
      },
      rolledBack: () => {
        end();
        this.#pending.unshift(...queued);
      },
    };
  }

  /**
   * Writes `closing` in the transaction that ends the run executing here (completed or failed;
   * `participant.stop`), after the events still queued: the turn's closing then waits for the disk
   * once with the run's end instead of after it. `closedWithRun` reports what it returned once that
   * committed; a closing that returns undefined must have written nothing.
   */
  closeWithRun<R>(closing: ClosingWithRun<R>): void {
    this.#closing = closing;
  }

  /** What the closing written with the run's end returned; null while (or unless) it has not committed. */
  closedWithRun<R>(): { report: R } | null {
    return this.#closed as { report: R } | null;
  }

  fromEngine(e: EngineEvent & { origin?: string }): void {
    if (e.origin) return; // another process executes (and records) that part of the run
    if (this.#closed) return; // the turn's closing, written with the run's end, was its last event
    const mapped = sessionEventOf(e);
    if (mapped) void this.record(mapped.event, mapped.body);
  }

  /** Writes everything queued; rejects with the first write failure (reported once). */
  async flush(): Promise<void> {
    if (this.#pending.length > 0 || this.#timer) await this.#drainNow();
    else if (this.#draining) this.#urgent = true;
    while (this.#draining) await this.#draining;
    this.#throwError();
  }

  /** Reports a failed write once. */
  #throwError(): void {
    const err = this.#error;
    this.#error = null;
    if (err) throw err;
  }

  /**
   * Runs `fn` in one transaction with the turn's own writes (claim, transcript, status) and the
   * events it `add`s, after the events still queued (written first, in the same transaction); all
   * are delivered once it committed. So a turn's opening and closing are one transaction each, and
   * the last step's progress goes with the closing.
   */
  async commitWith<T>(
    /**
     * `issued` hands over a statement `fn` need not wait for (one round trip where the store
     * pipelines): its failure — or the refusal its check throws — is the transaction's error.
     */
    fn: (tx: Transaction, add: AddEvent, issued: Issued) => Promise<T>,
  ): Promise<T> {
    while (this.#draining || this.#writing) await (this.#draining ?? this.#writing);
    this.#throwError();
    if (this.#timer) {
      clearTimeout(this.#timer);
      this.#timer = null;
    }
    const queued = this.#pending.splice(0);
    const out: SessionEvent[] = [];
    let result: T;
    try {
      result = await this.#store.transaction(async (tx) => {
        out.length = 0;
        // The queued events and those `fn` adds, written in one statement once `fn` is done.
        const events = queued.filter((q) => !q.live);
        const add = (event: SessionEventName, body: Record<string, unknown>) => {
          events.push({ live: false, event, body });
          return Promise.resolve();
        };
        const statements: Promise<unknown>[] = [];
        const issued = (statement: Promise<unknown>) => {
          statement.catch(() => {});
          statements.push(statement);
        };
        let r: T;
        try {
          r = await fn(tx, add, issued);
        } catch (err) {
          // Its own failure is the cause, or the first of the statements it issued before failing.
          for (const st of statements) await st;
          throw err;
        }
        const appended = appendSessionEvents(tx, this.session_id, this.run_id, events);
        appended.catch(() => {});
        for (const st of statements) await st;
        out.push(...(await appended));
        if (out.length > 0) await announce(this.#store, tx, this.session_id);
        return r;
      });
    } catch (err) {
      this.#pending.unshift(...queued);
      throw err;
    }
    if (out.length > 0) wakeFollowers(this.session_id);
    let i = 0;
    for (const q of queued) this.#deliver(q.live ? this.#liveEvent(q.event, q.body) : out[i++]!);
    for (; i < out.length; i++) this.#deliver(out[i]!);
    return result;
  }
}
