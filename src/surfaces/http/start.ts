/**
 * Assembles the HTTP surface over an open store: an engine for run views and event streams, browser
 * sessions keyed in the data directory, the route table, the server, and Socket.IO on the same port.
 * What only some requests need — most routes and pages, the flowchart and world runtimes, Socket.IO —
 * is loaded when a request (or a reclaimed run) first needs it.
 */
import { NoemaError } from '../../core/errors.ts';
import { nextTurn } from '../../core/load-once.ts';
import { createEngine, type Engine, sourcesExecutor } from '../../engine/index.ts';
import { startObservability } from '../../observability/index.ts';
import { startArtifactSweeper } from '../../runtimes/flow/artifacts/sweep.ts';
import type { Store } from '../../store/store.ts';
import { leaveAgentRunsToWorkers, setAgentRuntimeLease } from './agent-runtime.ts';
import { storeRevocations } from './auth/revocations.ts';
import { loadSessionKey, SessionKeeper } from './auth/sessions.ts';
import { FailureLog } from './errors.ts';
import { RunFeeds } from './events/feed.ts';
import { socketIoOnDemand } from './events/socket-io-on-demand.ts';
import { SseStreams } from './events/sse.ts';
import { startMetricsServer } from './metrics-server.ts';
import { alwaysRoutes } from './routes/always.ts';
import { startRunWork } from './run-work.ts';
import { runtimesOnDemand } from './runtimes-on-demand.ts';
import { startHttpServer } from './server.ts';

export interface NoemaHttpOptions {
  store: Store;
  host: string;
  port: number;
  portSetting: string;
  token: string;
  dataDir: string;
  /** The engine whose events are streamed (default: one created here, closed with the server). */
  engine?: Engine;
  /** SSE heartbeat interval (default 15 s). */
  heartbeatMs?: number;
  /** The engine lease of the runs this server executes (NOEMA_RUN_LEASE_MS; default 30 s). */
  leaseMs?: number;
  /**
   * Finish runs dead processes left behind (`startRunWork`), a pass every `intervalMs`; without it
   * the server executes only the runs it starts.
   */
  reclaim?: { intervalMs: number };
  /**
   * False (`noema serve --no-work`): the routes create runs and wait for or stream them as usual, but
   * every run executes on whichever worker claims it; no reclaiming here. Needs a store that
   * notifies other processes (`capabilities.supportsListenNotify`). Default true.
   */
  work?: boolean;
  /**
   * Where tracing (OTEL_*) and metrics (NOEMA_METRICS, NOEMA_METRICS_PORT) settings are read
   * (default `process.env`); see docs/observability.md.
   */
  env?: Readonly<Record<string, string | undefined>>;
}

export interface NoemaHttp {
  url: string;
  /** Nonce of the one-time login link printed on start. */
  loginNonce: string;
  /** With NOEMA_METRICS_PORT: where `/metrics` is served without the token. */
  metricsUrl: string | null;
  close(): Promise<void>;
}

/**
 * The server's engine executes the runs its routes start: the sources executor performs their
 * model/tool calls, and the runtimes register their node types on it when loaded.
 */
function serverEngine(store: Store, leaseMs: number | undefined, executes: boolean): Engine {
  return createEngine(store, {
    fanOut: true,
    executes,
    actions: sourcesExecutor(store),
    ...(leaseMs !== undefined ? { leaseMs } : {}),
  });
}

export async function startNoemaHttp(options: NoemaHttpOptions): Promise<NoemaHttp> {
  const env = options.env ?? process.env;
  // Before the engine runs anything: a bad OTEL_* value stops the server as configuration.
  const observability = await startObservability({
    env,
    store: options.store,
    metrics: env.NOEMA_METRICS?.trim().toLowerCase() !== 'off',
  });
  const work = options.work ?? true;
  if (!work && !options.store.capabilities.supportsListenNotify) {
    await observability.shutdown(0);
    throw new NoemaError(
      'CONFIG_INVALID',
      `serve --no-work needs a store that notifies other processes of run events, and ${options.store.location} does not`,
      { details: { setting: '--no-work' }, hint: 'use a postgres:// store, or serve without --no-work' },
    );
  }
  const engine = options.engine ?? serverEngine(options.store, options.leaseMs, work);
  if (options.leaseMs !== undefined) setAgentRuntimeLease(options.store, options.leaseMs);
  if (!work) leaveAgentRunsToWorkers(options.store);
  const sessions = new SessionKeeper(
    loadSessionKey(options.dataDir),
    Date.now,
    storeRevocations(options.store),
  );
  await sessions.loadRevocations();
  const feeds = new RunFeeds(engine);
  const sse = new SseStreams(options.heartbeatMs === undefined ? {} : { heartbeatMs: options.heartbeatMs });
  const closing: Array<() => Promise<void>> = [];
  const runtimes = runtimesOnDemand({
    store: options.store,
    engine,
    feeds,
    registerFlowNodes: !options.engine,
  });
  const failures = new FailureLog();
  const services = {
    store: options.store,
    engine,
    events: { feeds, sse },
    failures,
    metrics: observability.metrics,
    onClose: (hook: () => Promise<void>) => void closing.push(hook),
  };
  const server = await startHttpServer({
    host: options.host,
    port: options.port,
    portSetting: options.portSetting,
    token: options.token,
    sessions,
    routes: alwaysRoutes(services),
    onDemand: async () => {
      const { flowEvents } = await runtimes.load();
      await nextTurn();
      const { onDemandRoutes } = await import('./routes/index.ts');
      return onDemandRoutes({ ...services, flowEvents });
    },
    failures,
  }).catch(async (err: unknown) => {
    await observability.shutdown(0);
    throw err;
  });
  // Socket.IO is loaded when a client first comes for it; flowchart rooms are served from then on.
  const io = socketIoOnDemand(
    server.server,
    { store: options.store, feeds, token: options.token, sessions },
    async () => {
      const { flowEvents } = await runtimes.load();
      return (attached) => flowEvents.attach(attached);
    },
  );
  observability.metrics?.subscribers('sse', () => sse.openStreams);
  observability.metrics?.subscribers('socket.io', () => io.clients());
  const metricsServer = observability.metrics
    ? await startMetricsServer(observability.metrics, options.host, env)
    : null;
  const sweeper = startArtifactSweeper(options.store, {
    onError: (err) => process.emitWarning(`noema: node artifact sweep failed: ${String(err)}`),
  });
  server.onClose(async () => {
    for (const hook of closing) await hook();
    sweeper.stop();
    await runtimes.close();
    sse.close();
    await io.close();
    await feeds.close();
  });
  // Started once the server listens, and stopped before it closes (the agent runtime closes with it).
  const reclaimer =
    options.reclaim && work
      ? startRunWork(options.store, engine, {
          intervalMs: options.reclaim.intervalMs,
          queuedForMs: options.leaseMs ?? 30_000,
          register: { kind: 'serve', leaseMs: options.leaseMs ?? 30_000 },
          onDemandTypes: runtimes,
        })
      : null;
  return {
    url: server.url,
    loginNonce: sessions.mintLoginNonce(),
    metricsUrl: metricsServer?.url ?? null,
    close: async () => {
      reclaimer?.stop();
      await reclaimer?.deregister();
      await server.close();
      await metricsServer?.close();
      if (!options.engine) await engine.close();
      // Spans still queued are sent, within a bound: a collector that is down does not hold shutdown.
      await observability.shutdown(3_000);
    },
  };
}
