/**
 * The PostgreSQL LISTEN connection: one dedicated client for every channel of a store. A lost
 * connection (server restart, `pg_terminate_backend`, network) never crashes the process: it is logged
 * once, reconnected with capped exponential backoff, every channel is listened to again, and each
 * subscription's `onGap` is told that notifications sent meanwhile were lost.
 */
import pg from 'pg';
import { warn } from '../../core/warn.ts';
import type { ListenOptions, Unlisten } from '../store.ts';
import { LISTENER_APPLICATION_NAME } from './application-name.ts';
import { translatePostgresError } from './translate-error.ts';

interface Subscription {
  handler: (payload: string) => void;
  onGap: (() => void) | undefined;
  /** Set once the handler threw, so its failures are logged once. */
  failed: boolean;
}

/** Backoff between reconnection attempts: doubles from the first to the cap, with jitter. */
export interface ReconnectPolicy {
  firstDelayMs: number;
  maxDelayMs: number;
}

const DEFAULT_POLICY: ReconnectPolicy = { firstDelayMs: 100, maxDelayMs: 5_000 };

export class PostgresListener {
  readonly #url: string;
  readonly #location: string;
  readonly #policy: ReconnectPolicy;
  readonly #channels = new Map<string, Set<Subscription>>();
  #client: pg.Client | null = null;
  #connecting: Promise<pg.Client> | null = null;
  #retry: NodeJS.Timeout | null = null;
  #lostAt = 0;
  #attempts = 0;
  #closed = false;

  constructor(url: string, location: string, policy: ReconnectPolicy = DEFAULT_POLICY) {
    this.#url = url;
    this.#location = location;
    this.#policy = policy;
  }

  async listen(
    channel: string,
    handler: (payload: string) => void,
    options: ListenOptions = {},
  ): Promise<Unlisten> {
    const sub: Subscription = { handler, onGap: options.onGap, failed: false };
    let set = this.#channels.get(channel);
    const fresh = !set;
    if (!set) {
      set = new Set();
      this.#channels.set(channel, set);
    }
    set.add(sub);
    try {
      // Connecting (first time or again) listens to every channel in the map, this one included.
      if (this.#client) {
        if (fresh) await this.#client.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
      } else if (!this.#retry) {
        await this.#connect();
      }
    } catch (err) {
      set.delete(sub);
      if (set.size === 0 && this.#channels.get(channel) === set) this.#channels.delete(channel);
      throw translatePostgresError(err);
    }
    const current = set;
    return async () => {
      current.delete(sub);
      if (current.size > 0 || this.#channels.get(channel) !== current) return;
      this.#channels.delete(channel);
      await this.#client?.query(`UNLISTEN ${pg.escapeIdentifier(channel)}`).catch(() => {});
    };
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#retry) clearTimeout(this.#retry);
    this.#retry = null;
    const client = this.#client ?? (await this.#connecting?.catch(() => null));
    this.#client = null;
    await client?.end().catch(() => {});
  }

  /** Connects a client, listens to every channel known now, and makes it the listener. */
  #connect(): Promise<pg.Client> {
    if (this.#connecting) return this.#connecting;
    const p = (async () => {
      const client = new pg.Client({
        connectionString: this.#url,
        application_name: LISTENER_APPLICATION_NAME,
        connectionTimeoutMillis: 5_000,
      });
      // Installed before connecting: an 'error' without a listener would crash the process.
      client.on('error', () => this.#lost(client));
      client.on('end', () => this.#lost(client));
      client.on('notification', (msg) => this.#dispatch(msg.channel, msg.payload ?? ''));
      try {
        await client.connect();
        for (const channel of this.#channels.keys())
          await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
      } catch (err) {
        client.removeAllListeners('end');
        await client.end().catch(() => {});
        throw err;
      }
      if (this.#closed) {
        await client.end().catch(() => {});
        throw new Error('the store is closed');
      }
      this.#client = client;
      return client;
    })();
    this.#connecting = p;
    p.then(
      () => {
        this.#connecting = null;
      },
      () => {
        this.#connecting = null;
      },
    );
    return p;
  }

  #lost(client: pg.Client): void {
    if (this.#client !== client || this.#closed) return;
    this.#client = null;
    client.removeAllListeners('notification');
    client.end().catch(() => {});
    this.#lostAt = Date.now();
    this.#attempts = 0;
    warn('NOEMA_LISTEN_LOST', 'noema: the PostgreSQL LISTEN connection was lost; reconnecting', {
      store: this.#location,
      channels: [...this.#channels.keys()],
    });
    this.#schedule();
  }

  #schedule(): void {
    if (this.#closed) return;
    const base = Math.min(this.#policy.maxDelayMs, this.#policy.firstDelayMs * 2 ** this.#attempts);
    const delay = Math.round(base * (0.5 + Math.random() / 2));
    this.#attempts++;
    this.#retry = setTimeout(() => void this.#reconnect(), delay);
    this.#retry.unref();
  }

  async #reconnect(): Promise<void> {
    try {
      await this.#connect();
    } catch {
      // Still down: the loss was logged once; try again later.
      this.#retry = null;
      this.#schedule();
      return;
    }
    this.#retry = null;
    warn(
      'NOEMA_LISTEN_RESTORED',
      'noema: the PostgreSQL LISTEN connection is back; notifications sent meanwhile were lost',
      {
        store: this.#location,
        down_ms: Date.now() - this.#lostAt,
        attempts: this.#attempts,
      },
    );
    for (const [channel, set] of this.#channels) {
      for (const sub of [...set]) this.#call(channel, sub, () => sub.onGap?.());
    }
  }

  #dispatch(channel: string, payload: string): void {
    for (const sub of [...(this.#channels.get(channel) ?? [])])
      this.#call(channel, sub, () => sub.handler(payload));
  }

  #call(channel: string, sub: Subscription, fn: () => void): void {
    try {
      fn();
    } catch (err) {
      if (sub.failed) return;
      sub.failed = true;
      warn(
        'NOEMA_EVENT_LISTENER_FAILED',
        'noema: a LISTEN handler threw; its later failures are not logged',
        {
          channel,
          error: (err as Error | null)?.message ?? String(err),
        },
      );
    }
  }
}
