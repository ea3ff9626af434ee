/**
 * The Prometheus metrics, with prom-client (and the OpenTelemetry API its default metrics load)
 * imported when they are first needed — the first scrape, or the first run, invocation or engine
 * event — not when a server starts: an idle server does not carry them. What is observed before
 * then is kept in order and replayed into the metrics as they load, so no count is lost; store
 * commits alone do not load them (a server commits at start), unless many are waiting.
 */
import type { Counter } from 'prom-client';
import type { EngineEventSeen, InvocationFinished, RunCreated } from '../core/telemetry.ts';
import type { Metrics } from './metrics.ts';

type Env = Readonly<Record<string, string | undefined>>;

/** The engine events the metrics count: a node's start names a run's kind, a run's end is counted. */
const COUNTED_EVENTS: ReadonlySet<string> = new Set(['node.started', 'run.updated']);

/** Store commits kept before the metrics load; past this many, they are loaded. */
const COMMITS_BEFORE_LOAD = 4096;

export type LazyMetrics = Omit<Metrics, 'registry'> & {
  /** The loaded metrics (imports prom-client on the first call). */
  loaded(): Promise<Metrics>;
};

export function lazyMetrics(env: Env): LazyMetrics {
  let real: Metrics | null = null;
  let loading: Promise<Metrics> | null = null;
  const waiting: Array<(m: Metrics) => void> = [];
  const subscribers = new Map<'sse' | 'socket.io', () => number>();
  // The process CPU counters count from here, as they did when the metrics were made at start.
  const cpuAtStart = process.cpuUsage();
  const load = (): Promise<Metrics> => {
    loading ??= import('./metrics.ts').then((mod) => {
      const m = mod.createMetrics(env);
      const before = process.cpuUsage(cpuAtStart);
      const add = (name: string, micros: number) =>
        (m.registry.getSingleMetric(`noema_${name}`) as Counter | undefined)?.inc(micros / 1e6);
      add('process_cpu_user_seconds_total', before.user);
      add('process_cpu_system_seconds_total', before.system);
      add('process_cpu_seconds_total', before.user + before.system);
      for (const [transport, count] of subscribers) m.subscribers(transport, count);
      for (const f of waiting.splice(0)) f(m);
      real = m;
      return m;
    });
    return loading;
  };
  const observe = (f: (m: Metrics) => void, loadNow: boolean) => {
    if (real) return f(real);
    waiting.push(f);
    if (loadNow || waiting.length >= COMMITS_BEFORE_LOAD) void load();
  };
  return {
    engineEventTypes: COUNTED_EVENTS,
    loaded: load,
    async scrape() {
      return (await load()).scrape();
    },
    subscribers(transport, count) {
      subscribers.set(transport, count);
      real?.subscribers(transport, count);
    },
    // Once loaded, straight to the metrics: no closure per call.
    storeCommit(seconds: number) {
      if (real) real.storeCommit(seconds);
      else observe((m) => m.storeCommit(seconds), false);
    },
    runCreated(run: RunCreated) {
      if (real) real.runCreated!(run);
      else observe((m) => m.runCreated!(run), true);
    },
    engineEvent(e: EngineEventSeen) {
      if (real) real.engineEvent!(e);
      else observe((m) => m.engineEvent!(e), true);
    },
    invocationFinished(inv: InvocationFinished) {
      if (real) real.invocationFinished!(inv);
      else observe((m) => m.invocationFinished!(inv), true);
    },
  };
}
