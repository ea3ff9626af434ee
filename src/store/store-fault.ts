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
