/**
 * The observability layer's door: traces (OpenTelemetry, configured by the standard OTEL_*
 * variables only) and metrics (Prometheus, prom-client), installed as the process's telemetry
 * hooks. Unconfigured tracing loads nothing of OpenTelemetry and sends nothing.
 */
import { installTelemetry, type Telemetry, telemetry, wantsEngineEvent } from '../core/telemetry.ts';
import type { Store } from '../store/index.ts';
import type { LazyMetrics } from './lazy-metrics.ts';
import { type Env, traceSettings } from './settings.ts';

/** The Prometheus metrics (prom-client loaded on first use: `lazy-metrics.ts`). */
export type Metrics = LazyMetrics;
export { observabilityMigrations } from './migrations.ts';
export { traceSettings } from './settings.ts';
export { withIncomingTraceparent } from './trace-context.ts';

export interface ObservabilityOptions {
  env: Env;
  /** Keeps the trace context of runs started under an incoming `traceparent` (see trace-observer.ts). */
  store?: Store;
  /** Collect Prometheus metrics (default true). */
  metrics?: boolean;
}

export interface Observability {
  /** Whether spans are exported. */
  readonly tracing: boolean;
  /** The metrics, when collected. */
  readonly metrics: Metrics | null;
  /** Spans dropped since start (queue full, collector unreachable). */
  droppedSpans(): number;
  /** Exports queued spans, waiting at most `timeoutMs`. */
  flush(timeoutMs?: number): Promise<void>;
  /** Uninstalls the hooks and flushes within `timeoutMs` (default 5 s). */
  shutdown(timeoutMs?: number): Promise<void>;
}

/** The engine event types any observer wants, or undefined when one wants every type. */
function engineEventTypes(observers: Telemetry[]): ReadonlySet<string> | undefined {
  const types = new Set<string>();
  for (const o of observers) {
    if (!o.engineEvent) continue;
    if (!o.engineEventTypes) return undefined;
    for (const type of o.engineEventTypes) types.add(type);
  }
  return types;
}

/** One hook object calling each observer's (the first that answers wins for `aroundCall`/`outgoingTraceparent`). */
function combine(observers: Telemetry[]): Telemetry {
  if (observers.length === 1) return observers[0]!;
  const t: Telemetry = {
    runRows: (run) => observers.flatMap((o) => o.runRows?.(run) ?? []),
    runCreated: (run) => {
      for (const o of observers) o.runCreated?.(run);
    },
    engineEvent: (event) => {
      for (const o of observers) if (wantsEngineEvent(o, event.type)) o.engineEvent!(event);
    },
    invocationFinished: (inv) => {
      for (const o of observers) o.invocationFinished?.(inv);
    },
  };
  const types = engineEventTypes(observers);
  if (types) t.engineEventTypes = types;
  const commits = observers.find((o) => o.storeCommit);
  if (commits) t.storeCommit = (seconds) => commits.storeCommit!(seconds);
  const tracer = observers.find((o) => o.aroundCall);
  if (tracer) {
    t.aroundCall = (scope, fn) => tracer.aroundCall!(scope, fn);
    t.outgoingTraceparent = () => tracer.outgoingTraceparent?.();
  }
  return t;
}

/**
 * Reads the settings (a bad OTEL_* value throws CONFIG_INVALID naming it), loads what they ask for
 * and installs the hooks. With no OTLP endpoint set and metrics off, installs nothing.
 */
export async function startObservability(options: ObservabilityOptions): Promise<Observability> {
  const settings = traceSettings(options.env);
  const observers: Telemetry[] = [];
  let metrics: Metrics | null = null;
  if (options.metrics !== false) {
    metrics = (await import('./lazy-metrics.ts')).lazyMetrics(options.env);
    observers.push(metrics);
  }
  let spans: import('./span-export.ts').SpanExport | null = null;
  let idle: () => Promise<void> = async () => {};
  if (settings) {
    spans = await (await import('./span-export.ts')).startSpanExport(settings);
    const { traceObserver } = await import('./trace-observer.ts');
    const { runTraceStore } = await import('./run-trace-store.ts');
    const observer = traceObserver({
      spans,
      captureContent: settings.captureContent,
      store: options.store ? runTraceStore(options.store) : null,
      env: options.env,
    });
    idle = observer.idle;
    observers.push(observer);
  }
  const hooks = observers.length > 0 ? combine(observers) : null;
  if (hooks) installTelemetry(hooks);
  return {
    tracing: spans !== null,
    metrics,
    droppedSpans: () => spans?.dropped() ?? 0,
    async flush(timeoutMs = 5_000) {
      await idle();
      await spans?.flush(timeoutMs);
    },
    async shutdown(timeoutMs = 5_000) {
      if (hooks && telemetry() === hooks) installTelemetry(null);
      await idle();
      await spans?.shutdown(timeoutMs);
    },
  };
}
