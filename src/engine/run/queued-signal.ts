/**
 * Runs left to other processes, announced: a process that creates a run it will not execute (an API
 * process under `serve --no-work`), or answers one and gives its lease up, says so on one channel with
 * the commit, and the workers listening claim at once instead of at their next pass. Only a wake-up:
 * a worker that misses it (not listening yet, its connection lost) still finds the run by its passes.
 */
import type { Store, Transaction, Unlisten } from '../../store/store.ts';

export const RUNS_QUEUED_CHANNEL = 'noema_runs_queued';

/** Announces, with `tx`'s commit, that a run is waiting for a process to claim it. */
export async function announceQueued(tx: Transaction): Promise<void> {
  if (tx.notifyWithCommit) tx.notifyWithCommit(RUNS_QUEUED_CHANNEL, '');
  // A refused notification never aborts the transaction; the workers' passes find the run anyway.
  else await tx.notify(RUNS_QUEUED_CHANNEL, '').catch(() => {});
}

/**
 * Calls `onQueued` whenever a run is announced (and after the listening connection was lost, as
 * announcements may have been missed); `null` where the store has no LISTEN/NOTIFY.
 */
export async function listenForQueued(store: Store, onQueued: () => void): Promise<Unlisten | null> {
  if (!store.capabilities.supportsListenNotify || !store.listen) return null;
  return store.listen(RUNS_QUEUED_CHANNEL, () => onQueued(), { onGap: onQueued });
}
