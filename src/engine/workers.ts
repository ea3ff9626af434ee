/**
 * The registry of processes that execute runs (`engine_workers`): each registers on start, heartbeats
 * every third of its lease with the runs it has in flight, and deregisters when it stops; one whose
 * heartbeat is older than its lease is listed `stale` (it died without deregistering). Also the queue
 * depth: runnable runs no live process holds, by the node types of their graphs.
 */
import { hostname } from 'node:os';
import type { Store } from '../store/store.ts';

export interface WorkerRow {
  worker_id: string;
  /** `worker` (`noema worker`) or `serve` (plain `noema serve`, which also executes runs). */
  kind: string;
  host: string;
  pid: number;
  started_at: number;
  heartbeat_at: number;
  lease_ms: number;
  concurrency: number;
  runs_in_flight: number;
  /** The heartbeat is older than the lease: the process died without deregistering. */
  stale: boolean;
}

export interface WorkerRegistration {
  /** Removes the row (a clean stop). */
  stop(): Promise<void>;
}

export interface RegisterWorkerOptions {
  worker_id: string;
  kind: string;
  concurrency: number;
  leaseMs: number;
  /** Runs executing in the process now, read at each heartbeat. */
  inFlight: () => number;
  /** Clock, for tests. */
  now?: () => number;
}

export async function registerWorker(store: Store, o: RegisterWorkerOptions): Promise<WorkerRegistration> {
  const now = o.now ?? Date.now;
  const started = now();
  const insert = () =>
    store.run(
      `INSERT INTO engine_workers (worker_id, kind, host, pid, started_at, heartbeat_at, lease_ms, concurrency, runs_in_flight)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (worker_id) DO NOTHING`,
      [o.worker_id, o.kind, hostname(), process.pid, started, now(), o.leaseMs, o.concurrency, o.inFlight()],
    );
  await insert();
  const beat = async () => {
    const r = await store.run(
      'UPDATE engine_workers SET heartbeat_at = ?, runs_in_flight = ? WHERE worker_id = ?',
      [now(), o.inFlight(), o.worker_id],
    );
    // Pruned by another process while this one stalled: registered again.
    if (r.changes === 0) await insert();
  };
  const timer = setInterval(() => void beat().catch(() => {}), Math.max(100, Math.floor(o.leaseMs / 3)));
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await store.run('DELETE FROM engine_workers WHERE worker_id = ?', [o.worker_id]).catch(() => {});
    },
  };
}

/** Every registered process, oldest first; `stale` ones died without deregistering. */
export async function listWorkers(store: Store, now = Date.now()): Promise<WorkerRow[]> {
  const rows = await store.all<Record<string, unknown>>(
    'SELECT * FROM engine_workers ORDER BY started_at, worker_id LIMIT 1000',
  );
  return rows.map((r) => {
    const row = {
      worker_id: r.worker_id as string,
      kind: r.kind as string,
      host: r.host as string,
      pid: Number(r.pid),
      started_at: Number(r.started_at),
      heartbeat_at: Number(r.heartbeat_at),
      lease_ms: Number(r.lease_ms),
      concurrency: Number(r.concurrency),
      runs_in_flight: Number(r.runs_in_flight),
    };
    return { ...row, stale: now - row.heartbeat_at > row.lease_ms };
  });
}

/**
 * Runnable runs no process holds (queued, or running under an expired lease), counted per graph with
 * the graph's node types, for a caller that knows which runtime owns which types.
 */
export async function runnableByGraph(
  store: Store,
  now = Date.now(),
): Promise<Array<{ node_types: string[]; runs: number }>> {
  const rows = await store.all<{ graph_hash: string; n: number }>(
    `SELECT graph_hash, COUNT(*) AS n FROM engine_runs
      WHERE status IN ('queued', 'running') AND lease_expires_at < ?
      GROUP BY graph_hash LIMIT 1000`,
    [now],
  );
  const out: Array<{ node_types: string[]; runs: number }> = [];
  for (const r of rows) {
    const types = await store.all<{ node_type: string }>(
      'SELECT node_type FROM engine_graph_types WHERE graph_hash = ? ORDER BY node_type',
      [r.graph_hash],
    );
    out.push({ node_types: types.map((t) => t.node_type), runs: Number(r.n) });
  }
  return out;
}
