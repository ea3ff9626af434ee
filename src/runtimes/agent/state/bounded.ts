/**
 * Bounded collections for the Cogency state (seed 002): ordered key/value entries and lists that
 * keep only their newest items. Plain JSON data, so the state lives in engine channels unchanged.
 */

/** An ordered map entry. Kept as a list (not a JSON object) so "oldest" survives canonical JSON. */
export interface Entry<V = unknown> {
  key: string;
  value: V;
}

/** Sets `key` (an existing key keeps its place, as a Python dict does), then keeps the newest `max`. */
export function setEntry<V>(entries: readonly Entry<V>[], key: string, value: V, max: number): Entry<V>[] {
  const i = entries.findIndex((e) => e.key === key);
  const next = i >= 0 ? entries.map((e, j) => (j === i ? { key, value } : e)) : [...entries, { key, value }];
  return next.length > max ? next.slice(-max) : next;
}

/** Appends the items not already present (exact match), then keeps the newest `max`. */
export function addUnique(list: readonly string[], items: readonly string[], max: number): string[] {
  const next = [...list];
  for (const item of items) if (item && !next.includes(item)) next.push(item);
  return next.length > max ? next.slice(-max) : next;
}

/** Keeps the newest `max` items. */
export function keepLast<T>(list: readonly T[], max: number): T[] {
  return list.length > max ? list.slice(-max) : [...list];
}

/** The seed's `result[:max_tokens]`: a string cut to its budget. */
export function cut(text: string, max: number): string {
  return text.length > max ? text.slice(0, max) : text;
}

export function entriesToObject<V>(entries: readonly Entry<V>[]): Record<string, V> {
  const out: Record<string, V> = {};
  for (const e of entries) out[e.key] = e.value;
  return out;
}

export function fmt(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}
