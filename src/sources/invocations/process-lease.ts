/**
 * This process's ownership of the invocations it starts: one `source_processes` row per
 * (process, store), heartbeated while calls are in flight, so recovery in another process can
 * tell a dead owner (pid gone on this host, or lease expired) from a live one.
 */
import { hostname } from 'node:os';
import { uuidv7 } from '../../core/ids.ts';
import { incidentLog } from '../../core/incident-log.ts';
import type { Queryable, Store } from '../../store/store.ts';

export const LEASE_MS = 30_000;
const HEARTBEAT_MS = LEASE_MS / 3;

export interface ProcessLease {
  readonly processId: string;
  /** Marks a call in flight; returns the function that ends it. */
  hold(): () => void;
  /** Registers or refreshes the lease inside a transaction already open, when needed. */
  touch(tx: Queryable, now: number): Promise<void>;
  /** Whether `touch` at `now` would write (the lease is not known stored, or its beat is due). */
  needsTouch(now: number): boolean;
  /** Call after the transaction that ran `touch` committed: only then is the lease known stored. */
  committed(now: number): void;
  /** Recovery elsewhere took this process for dead (a row was interrupted): register again. */
  lost(): void;
}

const leases = new WeakMap<Store, ProcessLease>();

export const HOSTNAME = hostname();

/** The lease this process holds on `store` (registered on first use, in the caller's transaction). */
export function processLease(store: Store): ProcessLease {
  let lease = leases.get(store);
  if (!lease) {
    lease = createLease(store);
    leases.set(store, lease);
  }
  return lease;
}

/** The process id this process uses on `store`, if it has invoked anything there. */
export function ownProcessId(store: Store): string | undefined {
  return leases.get(store)?.processId;
}

function createLease(store: Store): ProcessLease {
  const processId = uuidv7();
  let registered = false;
  let lastBeat = 0;
  let inFlight = 0;
  let timer: NodeJS.Timeout | undefined;
  const beatLog = incidentLog(`source process lease ${processId} (pid ${process.pid}): heartbeat`);
  // Recovery in another process deletes the row of an owner it took for dead: re-insert it then.
  const refresh = async (q: Queryable, now: number) => {
    const r = await q.run('UPDATE source_processes SET heartbeat_at = ? WHERE process_id = ?', [
      now,
      processId,
    ]);
    if (r.changes === 0) await register(q, now);
  };
  const register = (q: Queryable, now: number) =>
    q.run(
      `INSERT INTO source_processes (process_id, hostname, pid, started_at, heartbeat_at, lease_ms)
       VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (process_id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at`,
      [processId, HOSTNAME, process.pid, now, now, LEASE_MS],
    );
  const beat = async () => {
    // Only running rows need a live lease: an idle tick stops the timer instead of writing.
    if (inFlight === 0) {
      if (timer) clearInterval(timer);
      timer = undefined;
      return;
    }
    try {
      lastBeat = Date.now();
      await refresh(store, lastBeat);
      beatLog.ok();
    } catch (err) {
      // A failed beat (a busy or briefly unreachable store) must not end the heartbeat for the
      // rest of the call; only a closed store does. The next touch() re-registers if reopened.
      if ((err as { code?: unknown }).code !== 'STORE_CLOSED') return beatLog.fail(err);
      if (timer) clearInterval(timer);
      timer = undefined;
    }
  };
  return {
    processId,
    hold() {
      inFlight += 1;
      if (!timer) {
        timer = setInterval(() => void beat(), HEARTBEAT_MS);
        timer.unref();
      }
      let released = false;
      // The timer outlives the call until a tick finds nothing in flight: creating and
      // clearing an interval per call is measurable on the per-call budget.
      return () => {
        if (released) return;
        released = true;
        inFlight -= 1;
      };
    },
    needsTouch(now) {
      return !registered || now - lastBeat > HEARTBEAT_MS / 2;
    },
    async touch(tx, now) {
      if (!registered) {
        // Until a transaction carrying this insert commits, every call repeats it (idempotently):
        // a rolled-back registration must not leave live rows without a lease.
        await register(tx, now);
      } else if (now - lastBeat > HEARTBEAT_MS / 2) {
        await refresh(tx, now);
      }
    },
    committed(now) {
      registered = true;
      lastBeat = Math.max(lastBeat, now);
    },
    lost() {
      registered = false;
    },
  };
}
