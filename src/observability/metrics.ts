/**
 * Prometheus metrics (prom-client) fed by the telemetry hooks: runs, LLM calls and tokens, source
 * invocations, event subscribers and the process. Labels take values from small fixed sets (kinds,
 * statuses, failure classes, configured providers and models), never ids.
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { LruMap } from '../core/lru.ts';
import type { EngineEventSeen, InvocationFinished, RunCreated, Telemetry } from '../core/telemetry.ts';
import { providerName } from './genai.ts';
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
  const runs = new LruMap<string, { kind: RunKind | null; created_at: number | null }>(10_000);

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
      runsStarted.inc({ kind });
    },
    engineEvent(e: EngineEventSeen) {
      if (e.type === 'node.started' && typeof e.node_type === 'string') {
        const known = runs.get(e.run_id);
        if (!known) runs.set(e.run_id, { kind: runKindOf([e.node_type]), created_at: null });
        return;
      }
      if (e.type !== 'run.updated') return;
      const status = String(e.status);
      if (status !== 'completed' && status !== 'failed' && status !== 'cancelled') return;
      const known = runs.get(e.run_id);
      runs.delete(e.run_id);
      const kind = known?.kind ?? 'unknown';
      runsFinished.inc({ kind, status });
      const start = known?.created_at ?? uuidv7Time(e.run_id);
      if (start !== null && e.at >= start) runDuration.observe({ kind, status }, (e.at - start) / 1000);
    },
    invocationFinished(inv: InvocationFinished) {
      const failure_class = inv.status === 'succeeded' ? 'none' : (inv.failure_class ?? inv.status);
      invocations.inc({ interface: inv.interface_name, invocation_kind: inv.invocation_kind, failure_class });
      if (!inv.interface_name.startsWith('llm')) return;
      const c = inv.columns;
      const labels = {
        provider: providerName(c.llm_base_url, c.llm_endpoint_name ?? inv.metadata.endpoint, env),
        model: bounded(c.llm_model ?? inv.metadata.model, 'unknown'),
      };
      llmCalls.inc({ ...labels, failure_class });
      if (typeof c.llm_prompt_tokens === 'number')
        llmTokens.inc({ ...labels, direction: 'input' }, c.llm_prompt_tokens);
      if (typeof c.llm_completion_tokens === 'number')
        llmTokens.inc({ ...labels, direction: 'output' }, c.llm_completion_tokens);
      llmLatency.observe(labels, Math.max(0, inv.ended_at - inv.started_at) / 1000);
      if (typeof c.llm_first_chunk_at === 'number' && c.llm_first_chunk_at >= inv.started_at)
        llmFirstToken.observe(labels, (c.llm_first_chunk_at - inv.started_at) / 1000);
    },
  };
}
