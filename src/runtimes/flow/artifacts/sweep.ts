/**
 * The periodic retention sweep: TTL artifacts expire even when their node never runs again.
 * (`max_count` only changes on write, so the write path enforces it.) The clock is injectable.
 */
import type { Store } from '../../../store/store.ts';

/** Deletes expired artifacts in batches; returns how many went. */
export async function sweepNodeArtifacts(
  store: Store,
  nowMs: number,
  batch = 1000,
): Promise<{ deleted: number }> {
  let deleted = 0;
  for (;;) {
    const ids = await store.all<{ artifact_id: number }>(
      'SELECT artifact_id FROM node_artifacts WHERE expires_at_ms IS NOT NULL AND expires_at_ms <= ? ORDER BY expires_at_ms LIMIT ?',
      [nowMs, batch],
    );
    if (ids.length === 0) return { deleted };
    const r = await store.run(
      `DELETE FROM node_artifacts WHERE artifact_id IN (${ids.map(() => '?').join(', ')})`,
      ids.map((i) => Number(i.artifact_id)),
    );
    deleted += r.changes;
    if (ids.length < batch) return { deleted };
  }
}

export interface ArtifactSweeper {
  /** Runs one sweep now (also what the timer does). */
  sweep(): Promise<{ deleted: number }>;
  stop(): void;
}

/** Sweeps every `intervalMs` (default 60 s) with `now()`; a failed sweep is reported, not fatal. */
export function startArtifactSweeper(
  store: Store,
  options: { intervalMs?: number; now?: () => number; onError?: (err: unknown) => void } = {},
): ArtifactSweeper {
  const now = options.now ?? Date.now;
  let running: Promise<{ deleted: number }> | null = null;
  const sweep = () => {
    running ??= sweepNodeArtifacts(store, now()).finally(() => {
      running = null;
    });
    return running;
  };
  const timer = setInterval(() => {
    sweep().catch((err) => options.onError?.(err));
  }, options.intervalMs ?? 60_000);
  timer.unref();
  return { sweep, stop: () => clearInterval(timer) };
}
