/**
 * The runs a long-running process executes besides those it starts: a reclaimer over the engine
 * holding the flowchart and world node types, and over the agent runtime's engine — loaded only once
 * there is work no other engine here can execute — so runs a dead process left behind (leases
 * expired, or queued too long), or that an API process created for a worker (`noema worker`), are
 * executed here, through each runtime's closing path.
 */
import { incidentLog } from '../../core/incident-log.ts';
import {
  type Engine,
  listenForQueued,
  type RunClaimer,
  type RunReclaimer,
  registerWorker,
  runnableByGraph,
  startRunReclaimer,
  type WorkerRegistration,
} from '../../engine/index.ts';
import { hasUnsettledTurns } from '../../runtimes/agent/sessions/session-store.ts';
import type { Store } from '../../store/store.ts';
import { agentRuntimeFor } from './agent-runtime.ts';

export interface RunWorkOptions {
  /** Time between reclaim passes (NOEMA_RECOVERY_INTERVAL_MS). */
  intervalMs: number;
  /**
   * A queued run is taken once queued this long: a server leaves the runs it creates to itself for a
   * lease; a worker, which creates none, takes them at once (0).
   */
  queuedForMs: number;
  /** Runs executed at once (default 4). */
  concurrency?: number;
  /** Also claim agent runs (session turns, profile synthesis) on the agent runtime's engine (default true). */
  agents?: boolean;
  /**
   * Also claim as soon as another process announces a run left to others (`serve --no-work`), not
   * only at the next pass: for a process that takes queued runs at once (a worker).
   */
  wake?: boolean;
  /**
   * Node types `engine` is given when first needed (the server's flowchart and world runtimes): until
   * they are loaded, each claim first asks whether a runnable run needs one of them, and loads them if so.
   */
  onDemandTypes?: { loaded(): boolean; needs(type: string): boolean; load(): Promise<unknown> };
  /** Listed in `engine_workers` (GET /workers, `noema workers`) as this kind, heartbeated every third of `leaseMs`. */
  register?: { kind: 'worker' | 'serve'; leaseMs: number };
}

/** Runs executed at once unless said otherwise. */
export const DEFAULT_RUN_CONCURRENCY = 4;

export interface RunWork extends RunReclaimer {
  /** Gives up the leases of the runs executing here (a drain past its grace); returns how many. */
  releaseLeases(): Promise<number>;
  /** Removes this process from the registry (after `stop`). */
  deregister(): Promise<void>;
}

export function startRunWork(store: Store, engine: Engine, options: RunWorkOptions): RunWork {
  const log = incidentLog(`reclaiming runs on ${store.location}`);
  const onDemand = options.onDemandTypes;
  /** Loads the on-demand node types if a runnable run needs them (before anything claims it elsewhere). */
  const typesFirst = async () => {
    if (!onDemand || onDemand.loaded()) return;
    const graphs = await runnableByGraph(store, Date.now());
    if (graphs.some((g) => g.node_types.some((t) => onDemand.needs(t)))) await onDemand.load();
  };
  const own: RunClaimer = onDemand
    ? {
        async claimNext(claim) {
          await typesFirst();
          return engine.claimNext(claim);
        },
      }
    : engine;
  let agentsLoaded = false;
  const agents: RunClaimer = {
    async claimNext(claim) {
      await typesFirst();
      // A turn whose run stopped before its session was closed (the process died in between) is
      // no engine work: it is settled here, as the session's next message would.
      const unsettled = await hasUnsettledTurns(store);
      if (!agentsLoaded && !unsettled && !(await engine.claimableElsewhere(claim))) return null;
      const runtime = await agentRuntimeFor(store);
      agentsLoaded = true;
      agentEngine = runtime.engine;
      if (unsettled) await runtime.settleStaleSessions();
      return runtime.engine.claimNext(claim);
    },
  };
  const concurrency = options.concurrency ?? DEFAULT_RUN_CONCURRENCY;
  let agentEngine: Engine | null = null;
  const registration: Promise<WorkerRegistration | null> = options.register
    ? registerWorker(store, {
        worker_id: engine.owner,
        kind: options.register.kind,
        concurrency,
        leaseMs: options.register.leaseMs,
        inFlight: () => engine.inFlight() + (agentEngine?.inFlight() ?? 0),
      }).catch((err: unknown) => {
        log.fail(err);
        return null;
      })
    : Promise.resolve(null);
  const reclaimer = startRunReclaimer(options.agents === false ? [own] : [own, agents], {
    intervalMs: options.intervalMs,
    queuedForMs: options.queuedForMs,
    concurrency,
    onOutcome: () => log.ok(),
    onError: (err) => {
      if ((err as { code?: unknown } | null)?.code !== 'STORE_CLOSED') log.fail(err);
    },
  });
  // A failed LISTEN leaves the passes to find the runs, as before.
  const unlisten = options.wake
    ? listenForQueued(store, () => void reclaimer.pass()).catch((err: unknown) => {
        log.fail(err);
        return null;
      })
    : Promise.resolve(null);
  return {
    ...reclaimer,
    stop() {
      reclaimer.stop();
      void unlisten.then((u) => u?.()).catch(() => {});
    },
    async releaseLeases() {
      let released = await engine.releaseLeases();
      if (agentsLoaded) released += await (await agentRuntimeFor(store)).engine.releaseLeases();
      return released;
    },
    async deregister() {
      await (await registration)?.stop();
    },
  };
}

/** The runtime whose runs a graph of these node types are. */
function runtimeOf(types: readonly string[]): string {
  if (types.some((t) => t.startsWith('world.'))) return 'world';
  if (types.some((t) => t.startsWith('flow.'))) return 'flow';
  if (types.some((t) => t.startsWith('profile_'))) return 'profile_synthesis';
  return 'agent';
}

/** Runnable runs no process holds (queued, or running under an expired lease): by runtime, and a total. */
export async function queueDepth(
  store: Store,
  now = Date.now(),
): Promise<{ by_kind: Record<string, number>; total: number }> {
  const by_kind: Record<string, number> = {};
  let total = 0;
  for (const g of await runnableByGraph(store, now)) {
    const kind = runtimeOf(g.node_types);
    by_kind[kind] = (by_kind[kind] ?? 0) + g.runs;
    total += g.runs;
  }
  return { by_kind, total };
}
