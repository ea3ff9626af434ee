/**
 * Which errors a run survives: a store fault (the store unreachable or busy) rolled back the write
 * it hit, and the same work may succeed on another attempt. Such an error must leave the run
 * `running` for another process to reclaim — never turn into a node failure or a failed run.
 */

const STORE_FAULTS = new Set(['STORE_UNAVAILABLE', 'STORE_BUSY']);

export function isStoreFault(err: unknown): boolean {
  const e = err as { code?: unknown; retryable?: unknown } | null | undefined;
  return e?.retryable === true && typeof e.code === 'string' && STORE_FAULTS.has(e.code);
}

/**
 * The store faults a process waiting on another's work outlives (a follower polling a run or a turn
 * another process executes): each poll a fault failed is tried again at the next, until faults have
 * followed one another for longer than `patienceMs` with no successful poll between them, when the
 * last one is thrown. Any other error is thrown at once.
 */
export class FaultPatience {
  readonly #patienceMs: number;
  #since = 0;

  constructor(patienceMs: number) {
    this.#patienceMs = patienceMs;
  }

  /** After a poll that failed with `err`: returns to poll again, or throws `err`. */
  forgive(err: unknown): void {
    if (!isStoreFault(err)) throw err;
    const now = Date.now();
    if (this.#since === 0) this.#since = now;
    else if (now - this.#since > this.#patienceMs) throw err;
  }

  /** After a poll that succeeded. */
  succeeded(): void {
    this.#since = 0;
  }
}
