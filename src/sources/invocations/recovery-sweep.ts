/**
 * The periodic recovery sweep of long-running processes (serve, mcp, workers): every interval,
 * `running` invocations of dead processes become `interrupted` while this process keeps serving.
 * Startup recovery alone would leave a dead worker's rows `running` until some process restarts.
 */
import { incidentLog } from '../../core/incident-log.ts';
import type { Store } from '../../store/store.ts';
import { type RecoveryReport, recoverInterruptedInvocations } from './recover.ts';

/** Default sweep interval: a third of a lease, so a dead owner's rows are recovered soon after it expires. */
export const DEFAULT_RECOVERY_INTERVAL_MS = 10_000;

export interface RecoverySweep {
  /** Runs one sweep now (never two at once); resolves with its report, or null if one was running. */
  sweepNow(): Promise<RecoveryReport | null>;
  /** Stops the timer and waits for a sweep in progress. Idempotent. */
  stop(): Promise<void>;
}

export function startRecoverySweep(
  store: Store,
  options: { intervalMs?: number; onRecovered?: (report: RecoveryReport) => void } = {},
): RecoverySweep {
  const intervalMs = options.intervalMs ?? DEFAULT_RECOVERY_INTERVAL_MS;
  const log = incidentLog(`recovery sweep on ${store.location}`);
  let running: Promise<RecoveryReport | null> | null = null;
  let stopped = false;
  const sweepNow = (): Promise<RecoveryReport | null> => {
    if (running || stopped) return Promise.resolve(null);
    running = recoverInterruptedInvocations(store)
      .then((report) => {
        log.ok();
        if (report.interrupted > 0) options.onRecovered?.(report);
        return report;
      })
      .catch((err: unknown) => {
        // A store outage must not stop the sweep: the next tick tries again.
        if ((err as { code?: unknown }).code !== 'STORE_CLOSED') log.fail(err);
        return null;
      })
      .finally(() => {
        running = null;
      });
    return running;
  };
  const timer = setInterval(() => void sweepNow(), intervalMs);
  timer.unref();
  return {
    sweepNow,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
