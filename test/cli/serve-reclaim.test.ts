/**
 * `noema serve` finishes the runs a crash left behind: a flowchart run in flight when serve is
 * killed with SIGKILL completes after serve restarts on the same store, without repeating the work
 * that had finished.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadScript, type ModelScript, startScriptedModel } from '../../src/dev/scripted-model/index.ts';
import { createFlowchart } from '../../src/runtimes/flow/index.ts';
import { getWorld } from '../../src/runtimes/world/index.ts';
import { type RunningCli, runCli, startCli } from '../../src/testing/cli.ts';
import { describeEachStore } from '../../src/testing/each-store.ts';
import { EXAMPLE, EXAMPLE_SCRIPT, readJson } from '../../src/testing/flow-kit.ts';
import { testTempDir } from '../../src/testing/temp-dir.ts';
import { waitUntil } from '../../src/testing/wait.ts';
import { PARK_SCRIPT, startParkKit } from '../../src/testing/world-kit.ts';

const TOKEN = 'serve-reclaim-test-token';

async function serveOn(env: NodeJS.ProcessEnv): Promise<{ server: RunningCli; url: string }> {
  const server = startCli(['serve', '--port', '0'], env);
  const [, url] = await server.waitFor(/serving on (http:\/\/127\.0\.0\.1:\d+)/);
  return { server, url: url as string };
}

async function api(url: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${url}/api${path}`, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

describeEachStore('noema serve reclaims runs after a crash', (factory) => {
  test('a flowchart run in flight when serve is SIGKILLed completes after a restart', async () =>
    factory.withStore(async ({ store, url: db }) => {
      const base = readJson(EXAMPLE_SCRIPT) as ModelScript;
      // The first memory call never answers: serve is killed while it waits for it.
      const model = await startScriptedModel({
        script: {
          rules: [
            {
              match: { any_message_contains: 'store in long-term memory' },
              times: 1,
              reply: { hang: true },
            },
            ...base.rules,
          ],
        },
      });
      const env = {
        NOEMA_DB: db,
        NOEMA_DATA_DIR: testTempDir('noema-serve-reclaim-'),
        NOEMA_TOKEN: TOKEN,
        NOEMA_LLM_BASE_URL: model.url,
        NOEMA_LLM_MODEL: 'scripted',
        NOEMA_RUN_LEASE_MS: '1500',
        NOEMA_RECOVERY_INTERVAL_MS: '200',
      };
      let first: RunningCli | undefined;
      let second: RunningCli | undefined;
      try {
        const fc = await createFlowchart(store, readJson(EXAMPLE));
        const started = await serveOn(env);
        first = started.server;
        const created = await api(started.url, 'POST', `/flowcharts/${fc.flowchart_id}/runs`, {
          input: { message: 'jam' },
        });
        assert.equal(created.status, 202, JSON.stringify(created.json));
        const runId =
          (created.json.data as { flowchart_run_id?: string } | undefined)?.flowchart_run_id ??
          (created.json.flowchart_run_id as string);
        await waitUntil('the slow memory call in flight', () => model.requests.length >= 2, {
          timeoutMs: 30_000,
          intervalMs: 20,
        });
        first.child.kill('SIGKILL');
        await first.exited;
        const left = await store.get<{ status: string }>('SELECT status FROM engine_runs WHERE run_id = ?', [
          runId,
        ]);
        assert.equal(left?.status, 'running', 'the crash left the run running');

        const restarted = await serveOn(env);
        second = restarted.server;
        let view: Record<string, unknown> = {};
        await waitUntil(
          'the run completed by the restarted serve',
          async () => {
            const r = await api(restarted.url, 'GET', `/flowcharts/${fc.flowchart_id}/runs/${runId}`);
            view = ((r.json.data as Record<string, unknown> | undefined) ?? r.json).item as Record<
              string,
              unknown
            >;
            return view.status === 'completed';
          },
          { timeoutMs: 30_000, intervalMs: 100 },
        );
        const nodeRuns = view.node_runs as Array<{ flowchart_node_id: string; status: string }>;
        assert.deepEqual(
          nodeRuns.map((n) => n.flowchart_node_id),
          ['start', 'summarize', 'remember', 'recall', 'plan', 'triaged', 'route', 'escalate'],
        );
        assert.ok(nodeRuns.every((n) => n.status === 'succeeded'));
        const summarizeCalls = model.requests.filter((r) =>
          JSON.stringify(r.body).includes("Summarize the customer's message"),
        );
        assert.equal(summarizeCalls.length, 1, 'the model call that had finished was not made again');

        second.child.kill('SIGTERM');
        assert.equal(await second.exited, 0);
      } finally {
        first?.child.kill('SIGKILL');
        second?.child.kill('SIGKILL');
        await sleep(50);
        await model.close();
      }
    }));
});

describeEachStore('noema serve reclaims world turns after a crash', (factory) => {
  test('a world turn in flight when serve is SIGKILLed is committed after a restart', async () =>
    factory.withStore(async ({ store, url: db }) => {
      // The ant's first generation never answers: serve is killed while it waits for it.
      const park = loadScript(PARK_SCRIPT);
      const hang = {
        match: { subject: 'ant' },
        times: 1,
        reply: { hang: true, hang_after_chunks: 1, json: {} },
      };
      const kit = await startParkKit(store, { script: { ...park, rules: [hang, ...park.rules] } });
      const env = {
        ...kit.env,
        NOEMA_DB: db,
        NOEMA_DATA_DIR: testTempDir('noema-serve-reclaim-'),
        NOEMA_TOKEN: TOKEN,
        NOEMA_RUN_LEASE_MS: '1500',
        NOEMA_RECOVERY_INTERVAL_MS: '200',
      };
      let first: RunningCli | undefined;
      let second: RunningCli | undefined;
      try {
        await kit.world('park');
        const started = await serveOn(env);
        first = started.server;
        // Answered only by a server that is killed first.
        void fetch(`${started.url}/worlds/park/turns`, {
          method: 'POST',
          headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
          body: '{}',
        }).catch(() => {});
        await waitUntil(
          'the ant generation in flight',
          () => kit.model.requests.some((q) => q.headers['x-noema-subject'] === 'ant'),
          { timeoutMs: 30_000, intervalMs: 20 },
        );
        first.child.kill('SIGKILL');
        await first.exited;
        const attempt = await store.get<{ attempt_id: string }>(
          "SELECT attempt_id FROM world_attempts WHERE world_slug = 'park' AND status = 'running'",
        );
        assert.ok(attempt, 'the crash left the attempt running');

        second = (await serveOn(env)).server;
        await waitUntil(
          'the turn committed by the restarted serve',
          async () => (await getWorld(store, { world_slug: 'park' })).head_turn === 1,
          { timeoutMs: 30_000, intervalMs: 100 },
        );
        const row = await store.get<{ status: string }>(
          'SELECT status FROM world_attempts WHERE attempt_id = ?',
          [attempt.attempt_id],
        );
        assert.equal(row?.status, 'committed', 'the same attempt, continued and committed');
        assert.equal(
          kit.toys.requests.filter((r) => r.path === '/weather').length,
          1,
          'the ambient call that had finished was not made again',
        );
        second.child.kill('SIGTERM');
        assert.equal(await second.exited, 0);
      } finally {
        first?.child.kill('SIGKILL');
        second?.child.kill('SIGKILL');
        await sleep(50);
        await kit.close();
      }
    }));
});

test('serve with a bad NOEMA_RUN_LEASE_MS says so in one line naming it, exit 2', async () => {
  const r = await runCli(['serve', '--port', '0'], { NOEMA_DB: ':memory:', NOEMA_RUN_LEASE_MS: 'soon' });
  assert.equal(r.code, 2, r.stderr);
  const lines = r.stderr.trim().split('\n');
  assert.equal(lines.length, 1, r.stderr);
  assert.match(lines[0]!, /NOEMA_RUN_LEASE_MS is invalid: "soon" is not a number of milliseconds/);
});
