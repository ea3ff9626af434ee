/**
 * The batches of PostgreSQL's deferred full-text indexes, taken by the store on a connection of its
 * own shortly after its writes commit — the server writes the postings beside the writers, not in
 * their commits (an LLM call's commit took a batch of 64 queued prompts, about 27 ms for a world
 * turn's, in one commit of 32). A batch takes only the queued rows no other batch holds and never
 * waits for a writer, so batches of several processes, or a reader's catch-up, may run together.
 * A process that writes and exits before its batch leaves the rows queued: the next batch, or the
 * next reader's catch-up, takes them.
 */
import type { IncidentLog } from '../../core/incident-log.ts';
import { backgroundCatchUpSql, DEFERRED_INDEXES_SQL } from './full-text.ts';

/** How soon after a write commits its store takes a batch (later writes join the same batch). */
export const BACKGROUND_INDEX_AFTER_MS = 50;
/** How long the list of deferred indexes found in the schema is kept before it is read again. */
const INDEXES_KEPT_MS = 60_000;
/** SQLSTATEs of a batch whose function or table was dropped (undefined function, undefined table). */
const SCHEMA_CHANGED: ReadonlySet<string> = new Set(['42883', '42P01']);

export interface BackgroundIndexOptions {
  /** Runs `sql` committed on its own, without waiting for the disk (postings are derived). */
  run(sql: string): Promise<void>;
  all<T>(sql: string): Promise<T[]>;
  log: IncidentLog;
  /** Milliseconds from a write to its batch (BACKGROUND_INDEX_AFTER_MS); null: never in the background. */
  afterMs: number | null;
}

export class BackgroundIndex {
  readonly #o: BackgroundIndexOptions;
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<void> | null = null;
  /** A write committed while a batch ran: another batch follows it. */
  #again = false;
  #closed = false;
  #indexes: { names: string[]; at: number } | null = null;

  constructor(options: BackgroundIndexOptions) {
    this.#o = options;
  }

  /** A write committed: its queued rows are indexed soon. */
  wrote(): void {
    if (this.#closed || this.#o.afterMs === null || this.#timer) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#timer = setTimeout(() => this.#batch(), this.#o.afterMs);
    this.#timer.unref();
  }

  #batch(): void {
    this.#timer = null;
    this.#again = false;
    this.#running = this.#takeQueues()
      .then(
        () => this.#o.log.ok(),
        (err: unknown) => {
          // The list is read again next time: a function or table may have gone since it was read.
          this.#indexes = null;
          // A migration replacing an index while a batch ran is no failure: the next batch finds the new one.
          if (!SCHEMA_CHANGED.has((err as { code?: unknown } | null)?.code as string)) this.#o.log.fail(err);
        },
      )
      .finally(() => {
        this.#running = null;
        if (this.#again) this.wrote();
      });
  }

  async #takeQueues(): Promise<void> {
    for (const name of await this.#deferredIndexes()) {
      if (this.#closed) return;
      await this.#o.run(backgroundCatchUpSql(name));
    }
  }

  async #deferredIndexes(): Promise<string[]> {
    const now = Date.now();
    if (this.#indexes && now - this.#indexes.at < INDEXES_KEPT_MS) return this.#indexes.names;
    const names = (await this.#o.all<{ name: string }>(DEFERRED_INDEXES_SQL)).map((r) => r.name);
    // None yet (migrations still to run): looked for again at the next batch.
    this.#indexes = names.length > 0 ? { names, at: now } : null;
    return names;
  }

  /** No batch starts after this; the one running, if any, ends first. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    await this.#running;
  }
}
