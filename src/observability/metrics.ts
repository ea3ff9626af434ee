/**
 * Prometheus metrics (prom-client) fed by the telemetry hooks: runs, LLM calls and tokens, source
 * invocations, event subscribers and the process. Labels take values from small fixed sets (kinds,
 * statuses, failure classes, configured providers and models), never ids.
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { EngineEventSeen, InvocationFinished, RunCreated, Telemetry } from '../core/telemetry.ts';
import { providerName } from './genai.ts';
import { RunMap } from './run-map.ts';
import { type RunKind, runKindOf } from './trace-observer.ts';

export interface Metrics extends Telemetry {
  readonly registry: Registry;
  /** The Prometheus text exposition of every metric. */
  scrape(): Promise<{ contentType: string; body: string }>;
  /** Reports the number of open event subscribers of a transport when scraped. */
  subscribers(transport: 'sse' | 'socket.io', count: () => number): void;
  /** Times one store commit (seconds), from the store's commit hook. */
  storeCommit(seconds: number): void;
}

const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
const COMMIT_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1];

/** A label value from the operator's configuration (a model name), cut to a sane length. */
function bounded(v: unknown, fallback: string): string {
  return typeof v === 'string' && v !== '' ? v.slice(0, 100) : fallback;
}

/** A metric's child per label values, looked up once: `inc`/`observe` with a labels object re-hashes it on every call. */
function children<C>(make: (values: string[]) => C): (...values: string[]) => C {
  const made = new Map<string, C>();
  return (...values) => {
    const key = values.join('\u0000');
    let child = made.get(key);
    if (child === undefined) {
      child = make(values);
      // Label values come from small fixed sets; a bound anyway, should configuration churn.
      if (made.size >= 1024) made.clear();
      made.set(key, child);
    }
    return child;
  };
}

function uuidv7Time(id: string): number | null {
  const hex = id.replaceAll('-', '');
  return hex[12] === '7' ? Number.parseInt(hex.slice(0, 12), 16) : null;
}

export function createMetrics(env: Readonly<Record<string, string | undefined>> = process.env): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'noema_' });
  const runsStarted = new Counter({
    name: 'noema_runs_started_total',
    help: 'Runs created, by kind (world_turn, agent_message, flowchart_run).',
    labelNames: ['kind'],
    registers: [registry],
  });
  const runsFinished = new Counter({
    name: 'noema_runs_finished_total',
    help: 'Runs that reached completed, failed or cancelled, by kind and status.',
    labelNames: ['kind', 'status'],
    registers: [registry],
  });
  const runDuration = new Histogram({
    name: 'noema_run_duration_seconds',
    help: 'From a run being created to its end, by kind and status.',
    labelNames: ['kind', 'status'],
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });
  const llmCalls = new Counter({
    name: 'noema_llm_calls_total',
    help: 'LLM calls, by provider, model and failure class ("none" when it succeeded).',
    labelNames: ['provider', 'model', 'failure_class'],
    registers: [registry],
  });
  const llmTokens = new Counter({
    name: 'noema_llm_tokens_total',
    help: 'Tokens the providers reported, by provider, model and direction (input, output).',
    labelNames: ['provider', 'model', 'direction'],
    registers: [registry],
  });
  const llmLatency = new Histogram({
    name: 'noema_llm_call_duration_seconds',
    help: 'LLM call latency, from the durable running record to the end of the reply.',
    labelNames: ['provider', 'model'],
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });
  const llmFirstToken = new Histogram({
    name: 'noema_llm_time_to_first_token_seconds',
    help: 'From the durable running record to the first streamed chunk.',
    labelNames: ['provider', 'model'],
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });
  const invocations = new Counter({
    name: 'noema_source_invocations_total',
    help: 'Source invocations, by interface, invocation kind and failure class ("none" when it succeeded).',
    labelNames: ['interface', 'invocation_kind', 'failure_class'],
    registers: [registry],
  });
  const commits = new Histogram({
    name: 'noema_store_commit_duration_seconds',
    help: 'Store write transactions, from BEGIN to the end of COMMIT.',
    buckets: COMMIT_BUCKETS,
    registers: [registry],
  });
  const subscriberCounts = new Map<string, () => number>();
  new Gauge({
    name: 'noema_event_subscribers',
    help: 'Open run event subscriptions, by transport (sse, socket.io).',
    labelNames: ['transport'],
    registers: [registry],
    collect() {
      for (const [transport, count] of subscriberCounts) this.set({ transport }, count());
    },
  });
  const runs = new RunMap<{ kind: RunKind | null; created_at: number | null }>(10_000);
  const started = children(([kind]) => runsStarted.labels(kind!));
  const finished = children((v) => runsFinished.labels(...v));
  const durations = children((v) => runDuration.labels(...v));
  const counted = children((v) => invocations.labels(...v));
  const calls = children((v) => llmCalls.labels(...v));
  const tokens = children((v) => llmTokens.labels(...v));
  const latency = children((v) => llmLatency.labels(...v));
  const firstToken = children((v) => llmFirstToken.labels(...v));

  return {
    registry,
    async scrape() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
    subscribers(transport, count) {
      subscriberCounts.set(transport, count);
    },
    storeCommit(seconds) {
      commits.observe(seconds);
    },
    runCreated(run: RunCreated) {
      const kind = runKindOf(run.nodes.map((n) => n.type));
      runs.set(run.run_id, { kind, created_at: run.created_at });
      started(kind).inc();
    },
    engineEvent(e: EngineEventSeen) {
      if (e.type === 'node.started' && typeof e.node_type === 'string') {
        if (!runs.has(e.run_id)) runs.set(e.run_id, { kind: runKindOf([e.node_type]), created_at: null });
        return;
      }
      if (e.type !== 'run.updated') return;
      const status = e.status;
      if (status !== 'completed' && status !== 'failed' && status !== 'cancelled') return;
      const known = runs.get(e.run_id);
      runs.delete(e.run_id);
      const kind = known?.kind ?? 'unknown';
      finished(kind, status).inc();
      const start = known?.created_at ?? uuidv7Time(e.run_id);
      if (start !== null && e.at >= start) durations(kind, status).observe((e.at - start) / 1000);
    },
    invocationFinished(inv: InvocationFinished) {
      const failure_class = inv.status === 'succeeded' ? 'none' : (inv.failure_class ?? inv.status);
      counted(inv.interface_name, inv.invocation_kind, failure_class).inc();
      if (!inv.interface_name.startsWith('llm')) return;
      const c = inv.columns;
      const provider = providerName(c.llm_base_url, c.llm_endpoint_name ?? inv.metadata.endpoint, env);
      const model = bounded(c.llm_model ?? inv.metadata.model, 'unknown');
      calls(provider, model, failure_class).inc();
      if (typeof c.llm_prompt_tokens === 'number') tokens(provider, model, 'input').inc(c.llm_prompt_tokens);
      if (typeof c.llm_completion_tokens === 'number')
        tokens(provider, model, 'output').inc(c.llm_completion_tokens);
      latency(provider, model).observe(Math.max(0, inv.ended_at - inv.started_at) / 1000);
      if (typeof c.llm_first_chunk_at === 'number' && c.llm_first_chunk_at >= inv.started_at)
        firstToken(provider, model).observe((c.llm_first_chunk_at - inv.started_at) / 1000);
    },
  };
}
