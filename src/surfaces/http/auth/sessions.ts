/**
 * Browser sessions, signed rather than stored: a session cookie is `<id>.<expires>.<hmac>` under a
 * key kept (owner-only) in the data directory, so a restart keeps sessions valid and nothing is
 * written per login. A logout is written (to the `RevocationStore`) so the cookie stays refused
 * after a restart and in every process. The CSRF token is an HMAC of the session id. One-time login
 * links are nonces held in this process only: single-use, short-lived, and gone when the server stops.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const SESSION_COOKIE = 'noema_session';
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
export const LOGIN_LINK_TTL_MS = 5 * 60 * 1000;

export interface Session {
  id: string;
  expires: number;
  csrf: string;
}

/** Reads the session key from `<dataDir>/session-key`, creating it (mode 0600) on first use. */
export function loadSessionKey(dataDir: string): Buffer {
  const path = join(dataDir, 'session-key');
  try {
    const existing = Buffer.from(readFileSync(path, 'utf8').trim(), 'base64url');
    if (existing.length >= 32) return existing;
  } catch {
    // No key yet: generate below.
  }
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const key = randomBytes(32);
  writeFileSync(path, `${key.toString('base64url')}\n`, { mode: 0o600 });
  return key;
}

/** Where logouts are kept beyond this process (`revocations.ts`: the store). */
export interface RevocationStore {
  /** Every revocation whose session has not expired at `now`. */
  load(now: number): Promise<Array<{ id: string; expires: number }>>;
  /** Records one (idempotent), and may drop those expired at `now`. */
  add(id: string, expires: number, now: number): Promise<void>;
  has(id: string): Promise<boolean>;
}

export class SessionKeeper {
  readonly #key: Buffer;
  readonly #now: () => number;
  readonly #nonces = new Map<string, number>();
  // Logged-out sessions, until they would have expired anyway (signed cookies cannot be unsigned).
  readonly #revoked = new Map<string, number>();
  readonly #durable: RevocationStore | undefined;

  constructor(key: Buffer, now: () => number = Date.now, durable?: RevocationStore) {
    this.#key = key;
    this.#now = now;
    this.#durable = durable;
  }

  /** Reads the durable revocations into this process (at start: `verify` then knows them too). */
  async loadRevocations(): Promise<void> {
    if (!this.#durable) return;
    for (const r of await this.#durable.load(this.#now())) this.#revoked.set(r.id, r.expires);
  }

  #mac(text: string): string {
    return createHmac('sha256', this.#key).update(text).digest('base64url');
  }

  issue(): { cookie: string; session: Session } {
    const id = randomBytes(18).toString('base64url');
    const expires = this.#now() + SESSION_TTL_MS;
    const body = `${id}.${expires}`;
    return { cookie: `${body}.${this.#mac(body)}`, session: this.#session(id, expires) };
  }

  #session(id: string, expires: number): Session {
    return { id, expires, csrf: this.#mac(`csrf.${id}`) };
  }

  verify(cookie: string | undefined): Session | null {
    if (!cookie) return null;
    const parts = cookie.split('.');
    if (parts.length !== 3) return null;
    const [id, exp, mac] = parts as [string, string, string];
    if (!safeEqual(mac, this.#mac(`${id}.${exp}`))) return null;
    const expires = Number(exp);
    if (!Number.isSafeInteger(expires) || expires <= this.#now() || this.#revoked.has(id)) return null;
    return this.#session(id, expires);
  }

  /**
   * As `verify`, and also refused when the durable store holds its logout (one made by another
   * process since this one loaded them). HTTP requests use this; `verify` alone answers from memory.
   */
  async verifyDurably(cookie: string | undefined): Promise<Session | null> {
    const session = this.verify(cookie);
    if (!session || !this.#durable || !(await this.#durable.has(session.id))) return session;
    this.#revoked.set(session.id, session.expires);
    return null;
  }

  /** Logs `session` out: in this process at once, and durably before the promise resolves. */
  async revoke(session: Session): Promise<void> {
    this.#revoked.set(session.id, session.expires);
    for (const [id, exp] of this.#revoked) if (exp <= this.#now()) this.#revoked.delete(id);
    await this.#durable?.add(session.id, session.expires, this.#now());
  }

  csrfMatches(session: Session, presented: string | undefined): boolean {
    return presented !== undefined && safeEqual(presented, session.csrf);
  }

  /** A single-use login nonce (the only token-like secret allowed in a URL). */
  mintLoginNonce(): string {
    const nonce = randomBytes(24).toString('base64url');
    this.#nonces.set(nonce, this.#now() + LOGIN_LINK_TTL_MS);
    return nonce;
  }

  consumeLoginNonce(nonce: string): boolean {
    const expires = this.#nonces.get(nonce);
    this.#nonces.delete(nonce);
    for (const [n, exp] of this.#nonces) if (exp <= this.#now()) this.#nonces.delete(n);
    return expires !== undefined && expires > this.#now();
  }
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
