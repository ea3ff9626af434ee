/**
 * The runs an observer keeps state for: a Map that forgets its oldest entry past a bound. A run's
 * entry is deleted when the run ends, so the bound only catches runs whose end was never told;
 * reads do not reorder entries (an LRU's delete and re-insert on every read was a measurable share
 * of a traced turn).
 */
export class RunMap<V> extends Map<string, V> {
  readonly #max: number;

  constructor(max: number) {
    super();
    this.#max = max;
  }

  override set(key: string, value: V): this {
    if (this.size >= this.#max && !this.has(key)) {
      const oldest = this.keys().next();
      if (!oldest.done) this.delete(oldest.value);
    }
    return super.set(key, value);
  }
}
