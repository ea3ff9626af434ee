/** Whether `v` and everything it holds are frozen (`deepFreeze`'s promise), for tests. */
export function frozenThroughout(v: unknown): boolean {
  if (typeof v !== 'object' || v === null) return true;
  return Object.isFrozen(v) && Object.values(v).every(frozenThroughout);
}
