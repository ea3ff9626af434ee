/**
 * Bounded polling for tests: every wait has a deadline and fails with what it was waiting for,
 * so a regression fails fast and legibly instead of hanging the suite.
 */

/** Polls `condition` every `intervalMs` until it is truthy; throws after `timeoutMs`. */
export async function waitUntil(
  what: string,
  condition: () => unknown | Promise<unknown>,
  { timeoutMs = 10_000, intervalMs = 5 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (await condition()) return;
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
