/**
 * Run feeds: one engine subscription per run shared by every client of this process (SSE streams
 * and Socket.IO rooms), with a ring buffer of recent events so a client that reconnects with the
 * id of an event this process delivered gets what followed. When continuity cannot be proven —
 * the resume point is unknown here, or the engine reports that events may have been missed (LISTEN
 * reconnect, an event too large) — the client gets a `resync` instead and refetches the run.
 */
import type { Engine, EngineEvent, EventGap } from '../../../engine/index.ts';

export type StreamEvent = EngineEvent & { origin?: string };

export interface ResyncInfo {
  run_id: string;
  reason: EventGap['reason'] | 'resume_point_unknown';
  /** Where to read the run's current state. */
  href: string;
}

export interface FeedSink {
  /** `id`: the event's stream id; null for an event read back from the store (a flowchart replay). */
  event(event: StreamEvent, id: number | null): void;
  resync(info: ResyncInfo): void;
}

export interface RunFeedOptions {
  /** The event's stream id, increasing per run (default: the engine's per-run `seq`, identical in every process). */
  idOf?: (event: StreamEvent) => number;
  /** Events kept per run for resumption (default 1 000). */
  buffer?: number;
  /** How long a run's subscription outlives its last client, so quick reconnects can resume (default 30 s). */
  lingerMs?: number;
}

interface Feed {
  sinks: Set<FeedSink>;
  /** The highest id sent: an event at or below it was sent already (ids increase per run). */
  last: number;
  recent: Array<{ id: number; event: StreamEvent }>;
  unsubscribe: Promise<() => Promise<void>>;
  linger: NodeJS.Timeout | null;
}

export class RunFeeds {
  readonly #engine: Engine;
  readonly #idOf: (event: StreamEvent) => number;
  readonly #buffer: number;
  readonly #lingerMs: number;
  readonly #feeds = new Map<string, Feed>();

  /** The engine whose events the feeds carry. */
  get engine(): Engine {
    return this.#engine;
  }

  constructor(engine: Engine, options: RunFeedOptions = {}) {
    this.#engine = engine;
    this.#idOf = options.idOf ?? ((e) => e.seq);
    this.#buffer = options.buffer ?? 1_000;
    this.#lingerMs = options.lingerMs ?? 30_000;
  }

  /**
   * Adds `sink` to the run's feed. With `lastEventId`, first replays the buffered events after it,
   * or sends `resync` when this process cannot prove it has every event after it.
   * Returns `leave`.
   */
  async join(run_id: string, sink: FeedSink, lastEventId?: number): Promise<() => void> {
    const feed = await this.#feed(run_id);
    // Synchronous from here: no event can be delivered between the replay and joining the feed.
    if (lastEventId !== undefined) this.replay(run_id, sink, lastEventId);
    feed.sinks.add(sink);
    if (feed.linger) {
      clearTimeout(feed.linger);
      feed.linger = null;
    }
    return () => {
      feed.sinks.delete(sink);
      if (feed.sinks.size === 0 && !feed.linger && this.#feeds.get(run_id) === feed) {
        feed.linger = setTimeout(() => void this.#drop(run_id, feed), this.#lingerMs);
        feed.linger.unref();
      }
    };
  }

  /**
   * Sends `sink` the buffered events after `lastEventId`, synchronously, or `resync` when this
   * process cannot prove it has every event after it (call after a `join` of the run resolved).
   */
  replay(run_id: string, sink: FeedSink, lastEventId: number): void {
    const recent = this.#feeds.get(run_id)?.recent ?? [];
    const at = recent.findIndex((r) => r.id === lastEventId);
    if (at < 0)
      sink.resync({ run_id, reason: 'resume_point_unknown', href: `/runs/${encodeURIComponent(run_id)}` });
    else for (const r of recent.slice(at + 1)) sink.event(r.event, r.id);
  }

  async #feed(run_id: string): Promise<Feed> {
    const existing = this.#feeds.get(run_id);
    if (existing) {
      await existing.unsubscribe;
      return existing;
    }
    const feed: Feed = {
      sinks: new Set(),
      last: Number.NEGATIVE_INFINITY,
      recent: [],
      linger: null,
      unsubscribe: Promise.resolve(async () => {}),
    };
    this.#feeds.set(run_id, feed);
    feed.unsubscribe = this.#engine.subscribe(
      run_id,
      (event) => {
        const id = this.#idOf(event);
        // Each event once, whatever delivered it twice (the stream's ids only increase).
        if (id <= feed.last) return;
        feed.last = id;
        feed.recent.push({ id, event });
        if (feed.recent.length > this.#buffer) feed.recent.shift();
        for (const sink of feed.sinks) sink.event(event, id);
      },
      {
        onGap: (gap) => {
          // The buffer can no longer prove continuity across the gap.
          feed.recent = [];
          for (const sink of feed.sinks)
            sink.resync({ run_id, reason: gap.reason, href: `/runs/${encodeURIComponent(run_id)}` });
        },
      },
    );
    try {
      await feed.unsubscribe;
    } catch (err) {
      this.#feeds.delete(run_id);
      throw err;
    }
    return feed;
  }

  async #drop(run_id: string, feed: Feed): Promise<void> {
    if (feed.sinks.size > 0 || this.#feeds.get(run_id) !== feed) return;
    this.#feeds.delete(run_id);
    await (await feed.unsubscribe)();
  }

  /** Unsubscribes every run (clients are closed by their streams' owners). */
  async close(): Promise<void> {
    const feeds = [...this.#feeds.entries()];
    this.#feeds.clear();
    for (const [, feed] of feeds) if (feed.linger) clearTimeout(feed.linger);
    await Promise.allSettled(feeds.map(async ([, feed]) => (await feed.unsubscribe)()));
  }
}
