// GET /metrics over the real HTTP surface, parsed with a Prometheus text-format parser: the
// counters move as a flowchart run with LLM calls happens, labels carry no ids, the token guards
// the API port, and NOEMA_METRICS_PORT serves the same text on a port of its own; on both stores.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startScriptedModel } from '../../src/dev/scripted-model/index.ts';
import { createFlowEngine } from '../../src/runtimes/flow/index.ts';
import { startNoemaHttp } from '../../src/surfaces/http/start.ts';
import { describeEachStore } from '../../src/testing/each-store.ts';
import { EXAMPLE, EXAMPLE_SCRIPT, readJson } from '../../src/testing/flow-kit.ts';
import { connectSse } from '../../src/testing/sse-client.ts';
import { testTempDir } from '../../src/testing/temp-dir.ts';

interface Sample {
  value?: string;
  labels?: Record<string, string>;
  count?: string;
  sum?: string;
  buckets?: Record<string, string>;
}
interface Family {
  name: string;
  type: string;
  metrics: Sample[];
}
const parsePrometheus = createRequire(import.meta.url)('parse-prometheus-text-format') as (
  text: string,
) => Family[];

const TOKEN = 'metrics-test-token-0123456789';
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

/**
 * The value of `name` whose labels include `labels` (0 when absent). For a histogram, its `+Inf`
 * bucket (its count): the parser folds a labelled histogram's buckets into one sample without its
 * labels, so the specs below hold one label set per histogram.
 */
function sampleValue(families: Family[], name: string, labels: Record<string, string> = {}): number {
  const family = families.find((f) => f.name === name);
  if (family?.type === 'HISTOGRAM') return Number(family.metrics[0]?.buckets?.['+Inf'] ?? 0);
  const sample = family?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
  return sample ? Number(sample.value) : 0;
}

describeEachStore('Prometheus metrics', (factory) => {
  test('/metrics counts runs, LLM calls, tokens and invocations as they happen', async () =>
    factory.withStore(async ({ store }) => {
      const model = await startScriptedModel({ script: readJson(EXAMPLE_SCRIPT) });
      const llmEnv = { NOEMA_LLM_BASE_URL: model.url, NOEMA_LLM_MODEL: 'scripted' };
      const engine = createFlowEngine(store, { env: llmEnv });
      const http = await startNoemaHttp({
        store,
        engine,
        host: '127.0.0.1',
        port: 0,
        portSetting: '--port',
        token: TOKEN,
        dataDir: testTempDir('noema-metrics-'),
        env: { ...llmEnv, NOEMA_METRICS_PORT: '0', NOEMA_LLM_PROVIDER: 'vllm' },
      });
      const auth = { authorization: `Bearer ${TOKEN}` };
      const call = async (method: string, path: string, body?: unknown) => {
        const res = await fetch(`${http.url}${path}`, {
          method,
          headers: { ...auth, 'content-type': 'application/json' },
          ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        });
        // biome-ignore lint/suspicious/noExplicitAny: fields asserted one by one
        return (await res.json()) as any;
      };
      const scrape = async () => {
        const res = await fetch(`${http.url}/metrics`, { headers: auth });
        assert.equal(res.status, 200);
        assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
        return parsePrometheus(await res.text());
      };
      try {
        assert.equal((await fetch(`${http.url}/metrics`)).status, 401, 'the API port wants the token');
        const before = await scrape();
        assert.ok(sampleValue(before, 'noema_process_cpu_user_seconds_total') > 0, 'process metrics');
        assert.ok(before.some((f) => f.name === 'noema_event_subscribers'));
        const flowchart = await call('POST', '/api/flowcharts', readJson(EXAMPLE));
        const started = await call('POST', `/api/flowcharts/${flowchart.flowchart_id}/runs`, {
          input: { message: 'jam' },
        });
        const runPath = `/api/flowcharts/${flowchart.flowchart_id}/runs/${started.flowchart_run_id}`;
        let view = await call('GET', runPath);
        for (let i = 0; i < 500 && view.item.status !== 'completed'; i++) {
          await sleep(20);
          view = await call('GET', runPath);
        }
        assert.equal(view.item.status, 'completed');
        const after = await scrape();
        const moved = (name: string, labels: Record<string, string> = {}) =>
          sampleValue(after, name, labels) - sampleValue(before, name, labels);
        const llmCalls = await store.get<{ n: number }>(
          "SELECT COUNT(*) AS n FROM source_invocations WHERE interface_name LIKE 'llm%'",
        );
        assert.equal(moved('noema_runs_started_total', { kind: 'flowchart_run' }), 1);
        assert.equal(moved('noema_runs_finished_total', { kind: 'flowchart_run', status: 'completed' }), 1);
        assert.equal(moved('noema_run_duration_seconds', { kind: 'flowchart_run', status: 'completed' }), 1);
        const llm = { provider: 'vllm', model: 'scripted' };
        assert.equal(moved('noema_llm_calls_total', { ...llm, failure_class: 'none' }), Number(llmCalls!.n));
        assert.equal(moved('noema_llm_call_duration_seconds', llm), Number(llmCalls!.n));
        assert.equal(
          moved('noema_llm_tokens_total', { ...llm, direction: 'input' }),
          10 * Number(llmCalls!.n),
        );
        assert.ok(moved('noema_llm_tokens_total', { ...llm, direction: 'output' }) > 0);
        assert.equal(moved('noema_llm_time_to_first_token_seconds', llm), Number(llmCalls!.n));
        assert.equal(
          moved('noema_source_invocations_total', { invocation_kind: 'flow_node', failure_class: 'none' }),
          Number(llmCalls!.n),
        );
        assert.ok(
          moved('noema_store_commit_duration_seconds') > 0,
          'store commits are timed (the run committed its steps)',
        );
        for (const f of after)
          for (const m of f.metrics)
            for (const v of Object.values(m.labels ?? {}))
              assert.doesNotMatch(v, UUID, `${f.name} has an id label`);

        // An open event stream is counted while it is open.
        const sse = await connectSse(`${http.url}/runs/${started.flowchart_run_id}/events`, auth);
        assert.equal(sse.status, 200);
        assert.equal(sampleValue(await scrape(), 'noema_event_subscribers', { transport: 'sse' }), 1);
        sse.close();
        let open = 1;
        for (let i = 0; i < 100 && open !== 0; i++) {
          await sleep(20);
          open = sampleValue(await scrape(), 'noema_event_subscribers', { transport: 'sse' });
        }
        assert.equal(open, 0, 'and not once it closed');

        // The separate port serves the same text without the token, and nothing else.
        assert.ok(http.metricsUrl);
        const separate = await fetch(http.metricsUrl!);
        assert.equal(separate.status, 200);
        const families = parsePrometheus(await separate.text());
        assert.equal(sampleValue(families, 'noema_runs_started_total', { kind: 'flowchart_run' }), 1);
        assert.equal((await fetch(http.metricsUrl!.replace('/metrics', '/api/flowcharts'))).status, 404);
      } finally {
        await http.close();
        await engine.close();
        await model.close();
      }
    }));
});
