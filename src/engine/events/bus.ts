/**
 * Per-run event stream. Listeners in this process get events as they happen; with LISTEN/NOTIFY the
 * events are also batched into the next engine transaction's NOTIFY so other processes' subscribers
 * see them once committed.
 */
import { clampString } from '../../core/budget.ts';
import type { Store, Transaction } from '../../store/store.ts';
import type { EngineEvent, EngineEventListener } from '../engine.ts';

export const EVENTS_CHANNEL = 'noema_engine_events';
// PostgreSQL caps a NOTIFY payload at 8000 BYTES (not characters: one CJK character is 3 bytes).
const MAX_NOTIFY_BYTES = 7_000;
const NOTIFY_HARD_LIMIT = 7_999;
// Strings kept in an abbreviated event; ≤ 6 bytes per UTF-16 unit once JSON-escaped.
const ABBREVIATED_STRING_UNITS = 500;

export class EventBus {
  readonly #listeners = new Map<string, Set<EngineEventListener>>();
  readonly #pending: EngineEvent[] = [];
  readonly #store: Store;
  readonly #origin: string;
  readonly #fanOut: boolean;
  #unlisten: (() => Promise<void>) | null = null;

  constructor(store: Store, origin: string, fanOut: boolean) {
    this.#store = store;
    this.#origin = origin;
    this.#fanOut = fanOut && store.capabilities.supportsListenNotify && typeof store.listen === 'function';
  }

  publish(event: EngineEvent): void {
    this.#deliver(event);
    if (this.#fanOut) this.#pending.push(event);
  }

  /** Whether anyone could observe an event of `run_id` (lets the hot path skip building events). */
  observed(run_id: string): boolean {
    return this.#fanOut || (this.#listeners.get(run_id)?.size ?? 0) > 0;
  }

  /** Sends the events published so far with `tx`'s commit. */
  async flush(tx: Transaction): Promise<void> {
    if (this.#pending.length === 0) return;
    const batch = this.#pending.splice(0);
    for (const payload of encodeBatches(this.#origin, batch)) {
      // A failed pg_notify aborts the whole transaction, so fan-out must never send what PG rejects.
      if (Buffer.byteLength(payload, 'utf8') > NOTIFY_HARD_LIMIT) continue;
      await tx.notify(EVENTS_CHANNEL, payload);
    }
  }

  /** Flushes events that no later transaction will carry. */
  async flushNow(): Promise<void> {
    if (this.#pending.length === 0) return;
    await this.#store.transaction((tx) => this.flush(tx));
  }

  async subscribe(run_id: string, listener: EngineEventListener): Promise<() => Promise<void>> {
    let set = this.#listeners.get(run_id);
    if (!set) {
      set = new Set();
      this.#listeners.set(run_id, set);
    }
    set.add(listener);
    if (this.#fanOut && !this.#unlisten) {
      this.#unlisten = await this.#store.listen!(EVENTS_CHANNEL, (payload) => this.#receive(payload));
    }
    return async () => {
      set.delete(listener);
      if (set.size === 0) this.#listeners.delete(run_id);
    };
  }

  async close(): Promise<void> {
    const u = this.#unlisten;
    this.#unlisten = null;
    if (u) await u();
  }

  #receive(payload: string): void {
    let msg: { origin: string; events: EngineEvent[] };
    try {
      msg = JSON.parse(payload);
    } catch {
      return;
    }
    if (msg.origin === this.#origin) return;
    for (const e of msg.events) this.#deliver(e, msg.origin);
  }

  #deliver(event: EngineEvent, origin?: string): void {
    const set = this.#listeners.get(event.run_id);
    if (!set) return;
    for (const l of set) {
      try {
        l(origin ? { ...event, origin } : event);
      } catch {
        // A failing listener must not break the run that emitted the event.
      }
    }
  }
}

function encodeBatches(origin: string, events: EngineEvent[]): string[] {
  const out: string[] = [];
  let batch: EngineEvent[] = [];
  const push = () => {
    if (batch.length > 0) out.push(JSON.stringify({ origin, events: batch }));
    batch = [];
  };
  let size = 0;
  for (const e of events) {
    let json = JSON.stringify(e);
    let event = e;
    let bytes = Buffer.byteLength(json, 'utf8');
    if (bytes > MAX_NOTIFY_BYTES - 100) {
      // Large bodies stay in the store (artifacts by artifact_id); remote listeners get the event
      // without them, marked `truncated`, so they know to read the store rather than trust the null.
      event = abbreviate(e);
      json = JSON.stringify(event);
      bytes = Buffer.byteLength(json, 'utf8');
      if (bytes > MAX_NOTIFY_BYTES - 100) continue;
    }
    if (size + bytes > MAX_NOTIFY_BYTES) {
      push();
      size = 0;
    }
    batch.push(event);
    size += bytes;
  }
  push();
  return out;
}

function abbreviate(e: EngineEvent): EngineEvent {
  const clamp = (s: string) => clampString(s, ABBREVIATED_STRING_UNITS).text;
  switch (e.type) {
    case 'artifact.persisted':
      return { ...e, artifact: null, truncated: true };
    case 'node.updated':
      return { ...e, data: null, truncated: true };
    case 'node.finished':
      return e.error === undefined ? e : { ...e, error: clamp(e.error), truncated: true };
    case 'run.updated': {
      if (!e.error) return e;
      const { details: _d, ...error } = e.error;
      return { ...e, error: { ...error, message: clamp(error.message) }, truncated: true };
    }
    default:
      return e;
  }
}
