/**
 * The engine's event bus: subscribers per run, delivery in `seq` order, and fan-out to other processes
 * with LISTEN/NOTIFY. Events are stamped and scoped to transactions by a run's `RunEvents` channel
 * (`run-events.ts`); the bus only delivers what a channel hands it and sends what a commit carries.
 */
import { type Telemetry, telemetry, wantsEngineEvent } from '../../core/telemetry.ts';
import { Incident, warn } from '../../core/warn.ts';
import type { Store, Transaction } from '../../store/store.ts';
import type {
  CommitParticipant,
  EngineEvent,
  EngineEventListener,
  EventGap,
  JoinedCommit,
  RunStop,
  SubscribeOptions,
} from '../engine.ts';
import { encodeBatches, type NotifyMessage, payloadHead } from './encode.ts';

export const EVENTS_CHANNEL = 'noema_engine_events';

interface Subscriber {
  listener: EngineEventListener;
  onGap: ((gap: EventGap) => void) | undefined;
  commitWith: CommitParticipant | undefined;
  /** Set once this subscriber threw, so its failures are logged once, not per event. */
  failed: boolean;
}

interface RunSubscribers {
  subs: Set<Subscriber>;
  /** Highest seq delivered: an older event (from a fenced-out process) is stale and dropped. */
  last: number;
}

export class EventBus {
  readonly #runs = new Map<string, RunSubscribers>();
  readonly store: Store;
  readonly origin: string;
  /** Whether events fan out to other processes (LISTEN/NOTIFY available and wanted). */
  readonly fanOut: boolean;
  #unlisten: Promise<(() => Promise<void>) | null> | null = null;
  readonly #notifyFailing = new Incident('NOEMA_EVENT_NOTIFY_FAILED');
  readonly #malformed = new Incident('NOEMA_EVENT_MALFORMED');
  /** The start of this process's own payloads, which LISTEN hands back to it as to every listener. */
  readonly #ownHead: string;

  constructor(store: Store, origin: string, fanOut: boolean) {
    this.store = store;
    this.origin = origin;
    this.#ownHead = payloadHead(origin);
    this.fanOut = fanOut && store.capabilities.supportsListenNotify && typeof store.listen === 'function';
  }

  /** Whether anyone could observe an event of `run_id` (lets the hot path skip building events). */
  observed(run_id: string): boolean {
    return this.fanOut || this.#runs.has(run_id) || telemetry()?.engineEvent !== undefined;
  }

  /**
   * Whether anyone could observe an event of `type` of `run_id`: subscribers and other processes see
   * every type, the telemetry hooks only the types they declare (`Telemetry.engineEventTypes`).
   */
  observes(run_id: string, type: EngineEvent['type']): boolean {
    return this.fanOut || this.#runs.has(run_id) || wantsEngineEvent(telemetry(), type);
  }

  async subscribe(
    run_id: string,
    listener: EngineEventListener,
    options: SubscribeOptions = {},
  ): Promise<() => Promise<void>> {
    let run = this.#runs.get(run_id);
    if (!run) {
      run = { subs: new Set(), last: -1 };
      this.#runs.set(run_id, run);
    }
    const sub: Subscriber = {
      listener,
      onGap: options.onGap,
      commitWith: options.commitWith,
      failed: false,
    };
    run.subs.add(sub);
    if (this.fanOut && !this.#unlisten) {
      this.#unlisten = this.store.listen!(EVENTS_CHANNEL, (payload) => this.#receive(payload), {
        onGap: () => this.#gapAll('listener_reconnected'),
      }).catch((err) => {
        this.#unlisten = null;
        throw err;
      });
    }
    if (this.#unlisten) await this.#unlisten;
    const current = run;
    return async () => {
      current.subs.delete(sub);
      if (current.subs.size === 0 && this.#runs.get(run_id) === current) this.#runs.delete(run_id);
    };
  }

  /** Whether a subscriber of `run_id` writes rows of its own with the run's transactions. */
  joins(run_id: string): boolean {
    const run = this.#runs.get(run_id);
    if (run === undefined) return false;
    for (const sub of run.subs) if (sub.commitWith !== undefined) return true;
    return false;
  }

  /** Whether such a subscriber holds rows to write (a commit that could go without it must not). */
  joining(run_id: string): boolean {
    const run = this.#runs.get(run_id);
    if (run === undefined) return false;
    for (const sub of run.subs) if (sub.commitWith?.pending()) return true;
    return false;
  }

  /** Whether a subscriber of `run_id` writes with the transaction that ends it (CommitParticipant.stop). */
  stops(run_id: string): boolean {
    const run = this.#runs.get(run_id);
    if (run === undefined) return false;
    for (const sub of run.subs) if (sub.commitWith?.stop !== undefined) return true;
    return false;
  }

  /**
   * Lets the run's participants write into `tx` (SubscribeOptions.commitWith); what each wrote. With
   * `stop`, `tx` ends the run: a participant that writes with the run's end does so whatever it holds.
   */
  async joinCommit(run_id: string, tx: Transaction, stop?: RunStop): Promise<JoinedCommit[]> {
    const run = this.#runs.get(run_id);
    if (run === undefined) return [];
    const joined: JoinedCommit[] = [];
    try {
      for (const sub of [...run.subs]) {
        const p = sub.commitWith;
        if (p === undefined) continue;
        const j =
          stop !== undefined && p.stop !== undefined
            ? await p.stop(tx, stop)
            : p.pending()
              ? await p.join(tx)
              : null;
        if (j) joined.push(j);
      }
    } catch (err) {
      for (const j of joined) j.rolledBack();
      throw err;
    }
    return joined;
  }

  /** Delivers committed or progress events to this process's subscribers, oldest first. */
  deliver(events: readonly EngineEvent[], origin?: string): void {
    // The observer sees this process's own events only: another process reports its own.
    const t = origin === undefined ? telemetry() : null;
    // Indexed: every commit of every run delivers here, and a `for…of` makes iterator results.
    for (let i = 0; i < events.length; i++) {
      const event = events[i]!;
      if (t !== null && wantsEngineEvent(t, event.type)) observe(t, event);
      const run = this.#runs.get(event.run_id);
      if (!run || event.seq <= run.last) continue;
      run.last = event.seq;
      const e = origin ? { ...event, origin } : event;
      for (const sub of run.subs) {
        try {
          sub.listener(e);
        } catch (err) {
          // A failing listener must not break the run that emitted the event; say so once.
          if (!sub.failed) {
            sub.failed = true;
            warn(
              'NOEMA_EVENT_LISTENER_FAILED',
              'noema: an engine event listener threw; its later failures are not logged',
              {
                run_id: event.run_id,
                seq: event.seq,
                type: event.type,
                error: (err as Error | null)?.message ?? String(err),
              },
            );
          }
        }
      }
    }
  }

  /**
   * Sends `events` with `tx`'s commit. Never throws: the store isolates a refused notification from
   * the transaction, and fan-out must not fail the step that carries it.
   */
  async notify(tx: Transaction, events: readonly EngineEvent[]): Promise<void> {
    if (!this.fanOut || events.length === 0) return;
    const { payloads, dropped } = encodeBatches(this.origin, events);
    for (const e of dropped.slice(0, 1)) {
      warn(
        'NOEMA_EVENT_TOO_LARGE',
        'noema: an engine event is too large for NOTIFY even abbreviated; remote subscribers get a gap',
        {
          run_id: e.run_id,
          seq: e.seq,
          type: e.type,
          dropped: dropped.length,
        },
      );
    }
    if (tx.notifyWithCommit) {
      // Sent with the COMMIT, without a round trip of their own; a refusal is logged once it is known.
      const settled = (refused: Error | null) => {
        if (refused) this.#refused(events, refused);
        else this.#notifyFailing.ok();
      };
      for (let i = 0; i < payloads.length; i++)
        tx.notifyWithCommit(EVENTS_CHANNEL, payloads[i]!, i === payloads.length - 1 ? settled : undefined);
      return;
    }
    for (const payload of payloads) {
      try {
        await tx.notify(EVENTS_CHANNEL, payload);
      } catch (err) {
        this.#refused(events, err);
        return;
      }
    }
    this.#notifyFailing.ok();
  }

  #refused(events: readonly EngineEvent[], err: unknown): void {
    this.#notifyFailing.fail('noema: sending engine events to other processes failed; the step went on', {
      run_id: events[0]!.run_id,
      events: events.length,
      error: (err as Error | null)?.message ?? String(err),
    });
  }

  async close(): Promise<void> {
    const u = this.#unlisten;
    this.#unlisten = null;
    const unlisten = await u?.catch(() => null);
    if (unlisten) await unlisten();
  }

  #receive(payload: string): void {
    // This process delivered its own events already: skip them unparsed (a payload is up to 7 KB).
    if (payload.startsWith(this.#ownHead)) return;
    let msg: NotifyMessage;
    try {
      msg = JSON.parse(payload) as NotifyMessage;
      if (typeof msg?.origin !== 'string' || !Array.isArray(msg.events))
        throw new Error('not an event batch');
    } catch (err) {
      this.#malformed.fail('noema: a notification on the engine events channel could not be read', {
        channel: EVENTS_CHANNEL,
        bytes: Buffer.byteLength(payload, 'utf8'),
        error: (err as Error).message,
      });
      this.#gapAll('malformed_notification');
      return;
    }
    this.#malformed.ok();
    if (msg.origin === this.origin) return;
    this.deliver(msg.events, msg.origin);
    for (const g of msg.gaps ?? []) this.#gap(g.run_id, 'event_too_large', g.seq);
  }

  #gapAll(reason: EventGap['reason']): void {
    for (const run_id of [...this.#runs.keys()]) this.#gap(run_id, reason);
  }

  #gap(run_id: string, reason: EventGap['reason'], seq?: number): void {
    const run = this.#runs.get(run_id);
    if (!run) return;
    const gap: EventGap = { reason, run_id, at: Date.now() };
    if (seq !== undefined) gap.seq = seq;
    for (const sub of run.subs) {
      try {
        sub.onGap?.(gap);
      } catch (err) {
        if (!sub.failed) {
          sub.failed = true;
          warn(
            'NOEMA_EVENT_LISTENER_FAILED',
            'noema: an engine gap listener threw; its later failures are not logged',
            {
              run_id,
              reason,
              error: (err as Error | null)?.message ?? String(err),
            },
          );
        }
      }
    }
  }
}

/** Tells the telemetry observer of an event; an observer's failure never reaches the run. */
function observe(t: Telemetry, event: EngineEvent): void {
  try {
    t.engineEvent?.(event);
  } catch {
    // The observer logs its own incidents.
  }
}
