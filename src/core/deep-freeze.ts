/**
 * Freezes a value and everything it holds. A graph shared by every run made of it is frozen so that
 * the engine can hash it once (it keys a frozen graph's hash by identity) and no run can change
 * what the next one reads.
 */
export function deepFreeze<T>(v: T): T {
  if (typeof v === 'object' && v !== null && !Object.isFrozen(v)) {
    for (const x of Object.values(v)) deepFreeze(x);
    Object.freeze(v);
  }
  return v;
}
