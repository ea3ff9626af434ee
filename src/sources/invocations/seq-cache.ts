/**
 * The last `invocation_seq` this process committed in each attempt (or run outside an attempt), per
 * store. The next call of the scope names that number + 1 in a plain insert — one statement, with no
 * `MAX` read in it and no read-back after it — which the scope's unique index turns away (`ON
 * CONFLICT DO NOTHING`) when another call took the number; the allocating insert follows then. A
 * number is noted only once the transaction of its row committed, so a rolled-back insert never
 * advances it and the numbers stay gapless. Per store handle, so two databases in one process never
 * share numbers; bounded. A scope with no number noted (new, or forgotten) names 1 (see `named` in
 * record.ts).
 */
import { type LruMap, lruPerHandle } from '../../core/lru.ts';

/** Scopes remembered per store: far more than the attempts and runs one process calls out in at once. */
export const SEQ_SCOPES = 1024;

export type SeqCache = LruMap<string, number>;

/** The cache of one store handle. */
export const seqCacheOf: (store: object) => SeqCache = lruPerHandle<string, number>(SEQ_SCOPES);

/** The key of a scope: its kind and id (an attempt id and a run id never share a key). */
export function seqScopeKey(scope: 'attempt' | 'run', id: string): string {
  return `${scope}:${id}`;
}

/** The number to name for the scope's next call, or undefined when this process has none noted. */
export function guessedSeq(cache: SeqCache, key: string): number | undefined {
  const n = cache.get(key);
  return n === undefined ? undefined : n + 1;
}

/** Notes that the scope's row with `seq` committed. */
export function seqCommitted(cache: SeqCache, key: string, seq: number): void {
  const n = cache.get(key);
  if (n === undefined || seq > n) cache.set(key, seq);
}
