/**
 * Prometheus metrics (prom-client) fed by the telemetry hooks: runs, LLM calls and tokens, source
 * invocations, event subscribers and the process. Labels take values from small fixed sets (kinds,
 * statuses, failure classes, configured providers and models), never ids.
 */
import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import type { EngineEventSeen, InvocationFinished, RunCreated, Telemetry } from '../core/telemetry.ts';
import { providerName } from './genai.ts';
import { CounterCells, HistogramCells } from './metric-cells.ts';
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

/** A count a counter can take: a finite number, not negative. */
function countable(v: unknown): v is number {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0;
}

function uuidv7Time(id: string): number | null {
  const hex = id.replaceAll('-', '');
  return hex[12] === '7' ? Number.parseInt(hex.slice(0, 12), 16) : null;
}

export function createMetrics(env: Readonly<Record<string, string | undefined>> = process.env): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'noema_' });
  const counter = (name: string, help: string, labelNames: string[]) =>
    new CounterCells(registry, name, help, labelNames);
  const histogram = (name: string, help: string, labelNames: string[], buckets = DURATION_BUCKETS) =>
    new HistogramCells(registry, name, help, labelNames, buckets);
  const runsStarted = counter(
    'noema_runs_started_total',
    'Runs created, by kind (world_turn, agent_message, flowchart_run).',
    ['kind'],
  );
  const runsFinished = counter(
    'noema_runs_finished_total',
    'Runs that reached completed, failed or cancelled, by kind and status.',
    ['kind', 'status'],
  );
  const runDuration = histogram(
    'noema_run_duration_seconds',
    'From a run being created to its end, by kind and status.',
    ['kind', 'status'],
  );
  const llmCalls = counter(
    'noema_llm_calls_total',
    'LLM calls, by provider, model and failure class ("none" when it succeeded).',
    ['provider', 'model', 'failure_class'],
  );
  const llmTokens = counter(
    'noema_llm_tokens_total',
    'Tokens the providers reported, by provider, model and direction (input, output).',
    ['provider', 'model', 'direction'],
  );
  const llmLatency = histogram(
    'noema_llm_call_duration_seconds',
    'LLM call latency, from the durable running record to the end of the reply.',
    ['provider', 'model'],
  );
  const llmFirstToken = histogram(
    'noema_llm_time_to_first_token_seconds',
    'From the durable running record to the first streamed chunk.',
    ['provider', 'model'],
  );
  const invocations = counter(
    'noema_source_invocations_total',
    'Source invocations, by interface, invocation kind and failure class ("none" when it succeeded).',
    ['interface', 'invocation_kind', 'failure_class'],
  );
  const commits = histogram(
    'noema_store_commit_duration_seconds',
    'Store write transactions, from BEGIN to the end of COMMIT.',
    [],
    COMMIT_BUCKETS,
  );
  // Unlabelled: exposed (as zeros) before the first commit, as prom-client's own histogram is.
  const commitCell = commits.at();
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
  return {
    registry,
    async scrape() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
    subscribers(transport, count) {
      subscriberCounts.set(transport, count);
    },
    storeCommit(seconds) {
      commits.observe(commitCell, seconds);
    },
    runCreated(run: RunCreated) {
      const kind = runKindOf(run.nodes.map((n) => n.type));
      runs.set(run.run_id, { kind, created_at: run.created_at });
      runsStarted.at(kind).value++;
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
      runsFinished.at(kind, status).value++;
      const start = known?.created_at ?? uuidv7Time(e.run_id);
      if (start !== null && e.at >= start)
        runDuration.observe(runDuration.at(kind, status), (e.at - start) / 1000);
    },
    invocationFinished(inv: InvocationFinished) {
      const failure_class = inv.status === 'succeeded' ? 'none' : (inv.failure_class ?? inv.status);
      invocations.at(inv.interface_name, inv.invocation_kind, failure_class).value++;
      if (!inv.interface_name.startsWith('llm')) return;
      const c = inv.columns;
      const provider = providerName(c.llm_base_url, c.llm_endpoint_name ?? inv.metadata.endpoint, env);
      const model = bounded(c.llm_model ?? inv.metadata.model, 'unknown');
      llmCalls.at(provider, model, failure_class).value++;
      if (countable(c.llm_prompt_tokens)) llmTokens.at(provider, model, 'input').value += c.llm_prompt_tokens;
      if (countable(c.llm_completion_tokens))
        llmTokens.at(provider, model, 'output').value += c.llm_completion_tokens;
      llmLatency.observe(llmLatency.at(provider, model), Math.max(0, inv.ended_at - inv.started_at) / 1000);
      if (typeof c.llm_first_chunk_at === 'number' && c.llm_first_chunk_at >= inv.started_at)
        llmFirstToken.observe(
          llmFirstToken.at(provider, model),
          (c.llm_first_chunk_at - inv.started_at) / 1000,
        );
    },
  };
}
