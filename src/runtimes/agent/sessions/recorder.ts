/**
 * The session-event recorder: a turn's events queued as the run reports them and written in batches,
 * with the run's own transactions (`participant`), or with the turn's opening and closing
 * (`commitWith`, `closeWithRun`); each stored event delivered once its commit returned.
 */
import type { CommitParticipant, EngineEvent, JoinedCommit, RunStop } from '../../../engine/index.ts';
import type { Store, Transaction } from '../../../store/store.ts';
import {
  announce,
  appendSessionEvents,
  issueSessionEvents,
  type LiveEventName,
  type SessionEvent,
  type SessionEventName,
  sessionEventOf,
  wakeFollowers,
} from './events.ts';

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
 * What `#writeWith` wrote: `fn`'s result, the events to deliver in order, the stored ones written
 * (filled in as their insert answers, before its transaction settles).
 */
interface Written<T> {
  result: T;
  batch: Queued[];
  written: { events: SessionEvent[] };
}

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
    let w: Written<unknown>;
    try {
      w = await this.#writeWith(tx, queued, (tx, add, issued) =>
        closing === null ? Promise.resolve(undefined) : closing(tx, stop!, add, issued),
      );
    } catch (err) {
      this.#pending.unshift(...queued);
      end();
      throw err;
    }
    return {
      committed: () => {
        end();
        // A closing that wrote nothing (undefined) leaves the turn to close after the run.
        if (w.result !== undefined) this.#closed = { report: w.result };
        this.#delivered(w.batch, w.written.events);
      },
      rolledBack: () => {
        end();
        this.#pending.unshift(...queued);
      },
    };
  }

  /**
   * Runs `fn` in `tx`, then writes the stored events of `queued` and those `fn` adds in one
   * statement, issued behind the statements `fn` handed over (`issued`) and checked after them.
   */
  async #writeWith<T>(
    tx: Transaction,
    queued: readonly Queued[],
    fn: (tx: Transaction, add: AddEvent, issued: Issued) => Promise<T>,
  ): Promise<Written<T>> {
    const batch: Queued[] = [...queued];
    const add: AddEvent = (event, body) => {
      batch.push({ live: false, event, body });
      return Promise.resolve();
    };
    const statements: Promise<unknown>[] = [];
    const issued: Issued = (statement) => {
      statement.catch(() => {});
      statements.push(statement);
    };
    let result: T;
    try {
      result = await fn(tx, add, issued);
    } catch (err) {
      // Its own failure is the cause, or the first of the statements it issued before failing.
      for (const st of statements) await st;
      throw err;
    }
    // Issued without waiting for its answer: where the store pipelines, the COMMIT goes behind it.
    const written = { events: [] as SessionEvent[] };
    const stored = batch.filter((b) => !b.live) as Array<Extract<Queued, { live: false }>>;
    issueSessionEvents(tx, this.session_id, this.run_id, stored, (events) => {
      written.events = events;
    });
    if (stored.length > 0) await announce(this.#store, tx, this.session_id);
    for (const st of statements) await st;
    return { result, batch, written };
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
    let w: Written<T>;
    try {
      w = await this.#store.transaction((tx) => this.#writeWith(tx, queued, fn));
    } catch (err) {
      this.#pending.unshift(...queued);
      throw err;
    }
    this.#delivered(w.batch, w.written.events);
    return w.result;
  }
}
