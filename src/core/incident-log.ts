/**
 * One log line per incident for background failures nobody awaits (lease heartbeats, pool
 * errors): the first failure is written to stderr with its context, repeats stay quiet until
 * the thing works again, so an outage is visible without a line per tick.
 */
export interface IncidentLog {
  /** Records a failure; logs it if this is the first since the last `ok()`. */
  fail(err: unknown): void;
  /** The operation worked again: the next failure is a new incident. */
  ok(): void;
}

/** Where lines go; tests replace it to observe them. */
export const incidentSink = { write: (line: string): void => void process.stderr.write(`${line}\n`) };

/**
 * The latch under every once-per-incident report (this log and `Incident` in `warn.ts`): `report`
 * runs on the first failure since the last `ok()`, repeats are dropped.
 */
export function incidentLatch<A extends unknown[]>(
  report: (...args: A) => void,
): { fail(...args: A): void; ok(): void } {
  let open = false;
  return {
    fail(...args) {
      if (open) return;
      open = true;
      report(...args);
    },
    ok() {
      open = false;
    },
  };
}

export function incidentLog(context: string): IncidentLog {
  return incidentLatch((err: unknown) => {
    const e = err as { code?: unknown; message?: unknown } | null;
    const code = typeof e?.code === 'string' ? `${e.code}: ` : '';
    const message = typeof e?.message === 'string' ? e.message : String(err);
    incidentSink.write(
      `noema: ${context} failed (${code}${message}); further failures are not logged until it recovers`,
    );
  });
}
