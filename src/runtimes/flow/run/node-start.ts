/**
 * A node run's start, held until it must be written: before the node's first model call (whose record
 * commits it), else with its finish, as one statement (a node that makes no call).
 */
const waiting = new WeakMap<object, () => void>();

/** Holds `carry` (which carries the start) for the execution whose context is `ctx`. */
export function holdStart(ctx: object, carry: () => void): void {
  waiting.set(ctx, carry);
}

/** Carries the execution's start now, if it is held: before a record that must follow it. */
export function carryStartNow(ctx: object): void {
  const carry = waiting.get(ctx);
  if (carry === undefined) return;
  waiting.delete(ctx);
  carry();
}

/** Takes the held start, to write with the finish: false when it was carried already. */
export function takeHeldStart(ctx: object): boolean {
  return waiting.delete(ctx);
}
