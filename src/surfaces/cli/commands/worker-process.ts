/**
 * A worker's engines and its claiming: the runtimes it executes (flowchart nodes, world turns, agent
 * turns and profile synthesis) registered on engines over the shared store when a runnable run first
 * needs them, claimed at once when queued (`queuedForMs: 0`), and the drain that ends it.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { loadOnce, nextTurn } from '../../../core/load-once.ts';
import { createEngine, sourcesExecutor } from '../../../engine/index.ts';
import type { Store } from '../../../store/store.ts';
import { closeAgentRuntime, setAgentRuntimeLease } from '../../http/agent-runtime.ts';
import { startRunWork } from '../../http/run-work.ts';

export type WorkerRuntime = 'world' | 'agent' | 'flow';

export interface WorkerOptions {
  runtimes: ReadonlySet<WorkerRuntime>;
  /** Runs executed at once. */
  concurrency: number;
  /** The lease of the runs it claims (NOEMA_RUN_LEASE_MS); renewed every third of it. */
  leaseMs: number;
  /** Time between claim passes when idle (NOEMA_RECOVERY_INTERVAL_MS). */
  intervalMs: number;
}

export interface DrainReport {
  /** Runs still executing when the grace ended, whose leases were given up for other processes. */
  released: number;
  /** Whether every run in flight stopped within the grace. */
  settled: boolean;
}

export interface Worker {
  /** The engine owner this worker claims as (host:pid:suffix). */
  owner: string;
  /** Claiming loops under way. */
  inFlight(): number;
  /**
   * Stops claiming, waits up to `graceMs` for the runs in flight to stop here, gives up the leases of
   * those still executing, and closes the engines (the store stays open).
   */
  drain(graceMs: number): Promise<DrainReport>;
}

export function startWorker(store: Store, options: WorkerOptions): Worker {
  const engine = createEngine(store, {
    fanOut: true,
    actions: sourcesExecutor(store),
    leaseMs: options.leaseMs,
  });
  const flow = options.runtimes.has('flow');
  const world = options.runtimes.has('world');
  let unbindWorlds = () => {};
  let typesLoaded = false;
  // The flowchart and world node types, loaded when a runnable run first needs them.
  const loadTypes = loadOnce(async () => {
    const flowRuntime = flow ? await import('../../../runtimes/flow/index.ts') : null;
    await nextTurn();
    const worldRuntime = world ? await import('../../../runtimes/world/index.ts') : null;
    flowRuntime?.registerFlowNodes(engine, { store, now: Date.now, defaultModel: '@flow' });
    if (worldRuntime) unbindWorlds = worldRuntime.bindWorldRuntime(store, engine);
    typesLoaded = true;
  });
  const agents = options.runtimes.has('agent');
  if (agents) setAgentRuntimeLease(store, options.leaseMs);
  const work = startRunWork(store, engine, {
    intervalMs: options.intervalMs,
    queuedForMs: 0,
    wake: true,
    concurrency: options.concurrency,
    agents,
    register: { kind: 'worker', leaseMs: options.leaseMs },
    onDemandTypes: {
      loaded: () => typesLoaded,
      needs: (type) => (flow && type.startsWith('flow.')) || (world && type.startsWith('world.')),
      load: loadTypes,
    },
  });
  return {
    owner: engine.owner,
    inFlight: () => work.inFlight(),
    async drain(graceMs) {
      work.stop();
      const settled = await Promise.race([
        work.settled().then(() => true),
        sleep(graceMs, false, { ref: false }),
      ]);
      const released = settled ? 0 : await work.releaseLeases().catch(() => 0);
      unbindWorlds();
      // A run still in flight may be waiting on a call that never answers: closing does not wait for it.
      if (settled && agents) await closeAgentRuntime(store);
      await work.deregister();
      await engine.close();
      return { released, settled };
    },
  };
}
