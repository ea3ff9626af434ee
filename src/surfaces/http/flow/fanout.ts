/**
 * One flowchart run's seed events in this process: each engine event resolved once (a store read),
 * deduplicated by the event's identity (`flowEventKey`: a retried step or a notification delivered
 * again is not sent twice), recovered from the store after the engine reports a gap (a LISTEN
 * reconnect: the events missed meanwhile are sent once), and fanned out to its subscribers.
 * A subscriber is replayed the run's stored events first (from the start, or after a `last_event_id`
 * this process delivered), then continues live, with no event twice and none missing in between.
 */

import { setTimeout as delay } from 'node:timers/promises';
import type { Engine } from '../../../engine/index.ts';
import { type FlowEvent, RUN_UPDATED, toFlowEvent } from '../../../runtimes/flow/index.ts';
import { isStoreFault } from '../../../store/index.ts';
import type { Store } from '../../../store/store.ts';
import type { ResyncInfo, RunFeeds } from '../events/feed.ts';
import { flowEventKey, storedFlowEvents } from './replay.ts';

export type FlowRunRef = { flowchart_id: string; flowchart_run_id: string; created_at: string };

export interface FlowSubscriber {
  /** `id`: the engine event's seq (null for an event recovered or replayed from the store). */
  event(e: FlowEvent, id: number | null, replayed: boolean): void;
  resync(info: ResyncInfo): void;
}

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

/** Pauses before each new try of an event's read the store refused for a moment (ms). */
const RESOLVE_RETRY_MS = [20, 100, 500];

interface Sent {
  /** Position in this fan-out's stream (1, 2, …). */
  order: number;
  id: number | null;
}

interface Subscription {
  out: FlowSubscriber;
  /** Live events held while the subscriber's replay is read; null once it is live. */
  held: Array<{ e: FlowEvent; id: number | null }> | null;
  /** What this subscriber was sent (a replayed event may still be on its way live). */
  seen: Set<string>;
  lastRunStatus: string | null;
}

/** Sends `e` to `sub` unless it had it: each subscriber gets each event once. */
function deliver(sub: Subscription, e: FlowEvent, id: number | null, replayed: boolean): void {
  if (e.event === RUN_UPDATED) {
    // A status repeats only after another (running, waiting, running); nothing follows the end.
    const last = sub.lastRunStatus;
    if (e.status === last || (last !== null && TERMINAL.has(last))) return;
    sub.lastRunStatus = e.status;
  } else {
    const key = flowEventKey(e);
    if (sub.seen.has(key)) return;
    sub.seen.add(key);
  }
  sub.out.event(e, id, replayed);
}

export class FlowRunFanout {
  readonly run: FlowRunRef;
  readonly #store: Store;
  readonly #engine: Engine;
  readonly #onEvent: (e: FlowEvent, id: number | null) => void;
  readonly #sent = new Map<string, Sent>();
  readonly #orderOfId = new Map<number, number>();
  readonly #subs = new Set<Subscription>();
  #order = 0;
  #lastRunStatus: string | null = null;
  #chain: Promise<void> = Promise.resolve();
  #leave: Promise<() => void> | null = null;
  #done = false;
  #ended: () => void = () => {};

  /** `onEvent`: every event this fan-out sends (the flowchart's room), after the subscribers. */
  constructor(
    deps: { store: Store; engine: Engine },
    run: FlowRunRef,
    onEvent: (e: FlowEvent, id: number | null) => void,
  ) {
    this.#store = deps.store;
    this.#engine = deps.engine;
    this.run = run;
    this.#onEvent = onEvent;
  }

  /** Joins the run's engine events (idempotent); resolves once joined. `ended`: the run finished. */
  start(feeds: RunFeeds, ended: () => void): Promise<void> {
    this.#ended = ended;
    this.#leave ??= feeds.join(this.run.flowchart_run_id, {
      event: (event, id) => this.#then(() => this.#resolve(event, id)),
      resync: (info) => this.#then(() => this.#recover(info)),
    });
    return this.#leave.then(() => undefined);
  }

  /** Whether the run finished (its terminal status was sent): nothing more comes. */
  get done(): boolean {
    return this.#done;
  }

  /** Leaves the run's engine events (after the events already received are sent). */
  async stop(): Promise<void> {
    const leave = this.#leave;
    this.#leave = null;
    if (!leave) return;
    (await leave.catch(() => null))?.();
    await this.#chain;
  }

  /**
   * Sends `out` the run's stored events, then what follows live. With `lastEventId` (an id this
   * fan-out sent), only what followed it; with one it never sent, everything, marked replayed.
   * Returns `leave`.
   */
  async subscribe(out: FlowSubscriber, lastEventId?: number): Promise<() => void> {
    const sub: Subscription = { out, held: [], seen: new Set(), lastRunStatus: null };
    this.#subs.add(sub);
    const leave = () => void this.#subs.delete(sub);
    try {
      const stored = await storedFlowEvents(this.#store, this.#engine, this.run);
      const after = lastEventId === undefined ? undefined : this.#orderOfId.get(lastEventId);
      for (const e of stored) {
        const sent = this.#sent.get(flowEventKey(e));
        // Known position: the client had what came up to `lastEventId`, and what came before this
        // fan-out began. An event not sent yet is coming live (held below).
        if (after !== undefined && (!sent || sent.order <= after)) {
          if (sent && e.event === RUN_UPDATED) sub.lastRunStatus = e.status;
          continue;
        }
        deliver(sub, e, sent?.id ?? null, true);
      }
      for (const h of sub.held ?? []) deliver(sub, h.e, h.id, false);
      sub.held = null;
      // The store says the run ended, and this fan-out has not sent that yet (it joined the run's
      // events after its end, or the end is on its way): whatever it has not sent is read back, so
      // it finishes and lets the run's events go.
      const last = stored.at(-1);
      if (!this.#done && last?.event === RUN_UPDATED && TERMINAL.has(last.status))
        this.#then(() => this.#recover(null));
    } catch (err) {
      leave();
      throw err;
    }
    return leave;
  }

  #then(fn: () => Promise<void>): void {
    this.#chain = this.#chain.then(fn).catch(() => {});
  }

  /**
   * The seed event `event` stands for, read from the store, sent with its id. A read the store
   * refuses for a moment (an outage, a busy pool) is tried again a few times, the run's later events
   * waiting behind it in order; one that still fails is dropped here and sent at the run's end
   * (`#recover`), without its id.
   */
  async #resolve(event: Parameters<typeof toFlowEvent>[2], id: number | null): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        const e = await toFlowEvent(this.#store, this.run, event);
        if (e) this.#send(e, id);
        return;
      } catch (err) {
        const pause = RESOLVE_RETRY_MS[attempt];
        if (pause === undefined || !isStoreFault(err)) return;
        await delay(pause);
      }
    }
  }

  /** After a gap: the events missed meanwhile, read from the store, each sent once. */
  async #recover(info: ResyncInfo | null): Promise<void> {
    let stored: FlowEvent[];
    try {
      stored = await storedFlowEvents(this.#store, this.#engine, this.run);
    } catch {
      if (info) for (const s of this.#subs) s.out.resync(info);
      return;
    }
    for (const e of stored) {
      // The stored list starts with `running`: only new after a pause (or when nothing came yet).
      const paused =
        this.#lastRunStatus === null || this.#lastRunStatus === 'queued' || this.#lastRunStatus === 'waiting';
      if (e.event === RUN_UPDATED && e.status === 'running' && !paused) continue;
      this.#send(e, null);
    }
  }

  #send(e: FlowEvent, id: number | null): void {
    if (this.#done) return;
    const key = flowEventKey(e);
    if (e.event === RUN_UPDATED ? e.status === this.#lastRunStatus : this.#sent.has(key)) return;
    const order = ++this.#order;
    this.#sent.set(key, { order, id });
    if (id !== null) this.#orderOfId.set(id, order);
    for (const s of this.#subs) {
      if (s.held) s.held.push({ e, id });
      else deliver(s, e, id, false);
    }
    this.#onEvent(e, id);
    if (e.event === RUN_UPDATED) {
      this.#lastRunStatus = e.status;
      if (TERMINAL.has(e.status)) {
        this.#done = true;
        this.#ended();
      }
    }
  }
}
