/**
 * A bounded map that forgets its least recently used entry: the cache for anything keyed by user
 * input (compiled schemas, prepared statements), so memory stays bounded however many keys arrive.
 */
export class LruMap<K, V> {
  readonly #max: number;
  readonly #map = new Map<K, V>();
  readonly #onEvict: ((key: K, value: V) => void) | undefined;

  constructor(max: number, onEvict?: (key: K, value: V) => void) {
    if (!Number.isInteger(max) || max < 1)
      throw new RangeError(`LruMap: max must be a positive integer (got ${max})`);
    this.#max = max;
    this.#onEvict = onEvict;
  }

  get size(): number {
    return this.#map.size;
  }

  get max(): number {
    return this.#max;
  }

  /** The value for `key`, which becomes the most recently used. */
  get(key: K): V | undefined {
    const v = this.#map.get(key);
    if (v !== undefined) {
      // Map iterates in insertion order: re-inserting moves the key to the young end.
      this.#map.delete(key);
      this.#map.set(key, v);
    }
    return v;
  }

  has(key: K): boolean {
    return this.#map.has(key);
  }

  /** Stores `value` as the most recently used, evicting the least recently used past `max`. */
  set(key: K, value: V): this {
    this.#map.delete(key);
    this.#map.set(key, value);
    while (this.#map.size > this.#max) {
      const [oldKey, oldValue] = this.#map.entries().next().value as [K, V];
      this.#map.delete(oldKey);
      this.#onEvict?.(oldKey, oldValue);
    }
    return this;
  }

  delete(key: K): boolean {
    return this.#map.delete(key);
  }

  clear(): void {
    this.#map.clear();
  }
}

/**
 * One LruMap per handle (a store, a connection), made on its first use and dropped with the handle:
 * for caches of rows that never change, kept apart per database a process opens.
 */
export function lruPerHandle<K, V>(max: number): (handle: object) => LruMap<K, V> {
  const maps = new WeakMap<object, LruMap<K, V>>();
  return (handle) => {
    let map = maps.get(handle);
    if (!map) {
      map = new LruMap<K, V>(max);
      maps.set(handle, map);
    }
    return map;
  };
}
