/**
 * API and workers as separate processes: `noema serve --no-work` creates runs and answers or streams
 * them as plain serve does, while two `noema worker` processes execute them — world turns answered
 * over HTTP, agent messages with an MCP tool call streamed, flowchart runs created and read back.
 * Every run completes exactly once, each model and tool call is made once (counted at the scripted
 * models, the toys and the MCP fixture, which live in this process), and the API process makes none.
 *
 * Pinned to PostgreSQL: `--no-work` needs a store that carries run events between processes
 * (LISTEN/NOTIFY); on SQLite it is refused (also specified here).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startFixtureHttpServer } from '../../src/dev/mcp-fixture-server.ts';
import { loadScript, startScriptedModel } from '../../src/dev/scripted-model/index.ts';
import { startToyServices } from '../../src/dev/toys/index.ts';
import { startModelRouter } from '../../src/surfaces/cli/demo/model-router.ts';
import { type RunningCli, runCli, startCli } from '../../src/testing/cli.ts';
import { connectSse } from '../../src/testing/sse-client.ts';
import { openTestStore, selectedStores } from '../../src/testing/stores.ts';
import { testTempDir } from '../../src/testing/temp-dir.ts';
import { waitUntil } from '../../src/testing/wait.ts';
import { startWorkerCli, type WorkerProcess } from '../../src/testing/worker-kit.ts';

const example = (path: string) => fileURLToPath(new URL(`../../examples/${path}`, import.meta.url));
const PARK = example('park');
const AGENT = example('agents/calculator/agent.json');
const FLOWCHART = example('flowcharts/support-triage.json');
const TOKEN = 'no-work-test-token-0123456789';
const FLOW_MODEL = 'scripted-flow';
const TURNS = 2;
const MESSAGES = 3;
const FLOW_RUNS = 3;

async function startServices() {
  const world = await startScriptedModel({ script: loadScript(`${PARK}/model-script.json`) });
  const agent = await startScriptedModel({
    script: loadScript(example('agents/calculator/model-script.json')),
  });
  const flow = await startScriptedModel({
    script: loadScript(example('flowcharts/support-triage.script.json')),
  });
  const router = await startModelRouter({
    world: world.url,
    agent: agent.url,
    flow: flow.url,
    flowModel: FLOW_MODEL,
  });
  const toys = await startToyServices({ vendingStock: 1 });
  const mcp = await startFixtureHttpServer();
  return {
    world,
    agent,
    flow,
    toys,
    mcp,
    env: {
      ...toys.env,
      NOEMA_MCP_FIXTURE_URL: mcp.url,
      NOEMA_LLM_BASE_URL: router.url,
      NOEMA_LLM_MODEL: 'scripted',
      NOEMA_LLM_MODEL_FLOW: FLOW_MODEL,
    },
    async close() {
      for (const s of [router, world, agent, flow, toys, mcp]) await s.close();
    },
  };
}

async function api(url: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // An event stream: the text is what counts.
  }
  return { status: res.status, json, text };
}

/** The `event:` names of an SSE body, in order. */
const eventNames = (sse: string) => [...sse.matchAll(/^event: (\S+)$/gm)].map((m) => m[1]!);

/**
 * A flowchart run's SSE events (`event` and the node or run status it names), read until the run's
 * final update.
 */
async function flowEvents(href: string): Promise<string[]> {
  const sse = await connectSse(href, { authorization: `Bearer ${TOKEN}` });
  const out: string[] = [];
  try {
    for (;;) {
      const m = await sse.next(30_000);
      if (m === null) return out;
      const d = JSON.parse(m.data) as Record<string, unknown>;
      const item = (d.node_run ?? d.run ?? d.artifact ?? d) as Record<string, unknown>;
      out.push(
        `${m.event} ${String(item.flowchart_node_id ?? item.status ?? item.artifact_type ?? '')}`.trim(),
      );
      if (
        m.event === 'flowchart.run.updated' &&
        ['completed', 'failed', 'cancelled'].includes(String(item.status))
      )
        return out;
    }
  } finally {
    sse.close();
  }
}

/** `id event` of each SSE frame that has an id (a stored event), in order. */
const storedEventsOf = (sse: string) =>
  [...sse.matchAll(/^id: (\d+)\nevent: (\S+)$/gm)].map((m) => `${m[1]} ${m[2]}`);

const postgres = selectedStores().includes('postgres');

describe('serve --no-work with two workers on one PostgreSQL store', {
  skip: postgres ? false : 'STORES excludes postgres',
}, () => {
  test('world turns, streamed agent messages with a tool call and flowchart runs complete once, executed by the workers', async () => {
    const ts = await openTestStore('postgres');
    const services = await startServices();
    const env: Record<string, string> = {
      ...services.env,
      NOEMA_DB: ts.url,
      NOEMA_DATA_DIR: testTempDir('noema-no-work-'),
      NOEMA_TOKEN: TOKEN,
      NOEMA_RECOVERY_INTERVAL_MS: '100',
      NOEMA_RUN_LEASE_MS: '3000',
    };
    let serve: RunningCli | undefined;
    const workers: WorkerProcess[] = [];
    try {
      for (const args of [
        ['world', 'apply', PARK],
        ['world', 'create', 'park', '--scenario', PARK],
        ['agent', 'put', AGENT],
      ]) {
        const r = await runCli(args, env, 60_000);
        assert.equal(r.code, 0, `noema ${args.join(' ')}: ${r.stderr}`);
      }
      serve = startCli(['serve', '--port', '0', '--no-work'], env);
      const [, url] = await serve.waitFor(
        /serving on (http:\/\/127\.0\.0\.1:\d+).*runs execute on workers/,
        30_000,
      );
      workers.push(...(await Promise.all([startWorkerCli(env), startWorkerCli(env)])));

      const created = await api(url!, 'POST', '/api/flowcharts', JSON.parse(await readText(FLOWCHART)));
      assert.equal(created.status, 201, created.text);
      const flowchartId = created.json.flowchart_id as string;

      const worldTurns = (async () => {
        const results: Array<Record<string, unknown>> = [];
        for (let i = 0; i < TURNS; i++) {
          const r = await api(url!, 'POST', '/worlds/park/turns', {});
          assert.ok(r.status === 200 || r.status === 201, r.text);
          results.push(r.json);
        }
        return results;
      })();
      const messages = Promise.all(
        Array.from({ length: MESSAGES }, async (_, i) => {
          const session = await api(url!, 'POST', '/sessions', {
            agent_label: 'calculator',
            user_id: `u${i}`,
          });
          assert.equal(session.status, 201, session.text);
          const id = session.json.session_id as string;
          const r = await api(url!, 'POST', `/sessions/${id}/messages`, { content: 'add 2 and 3' });
          assert.equal(r.status, 200, r.text);
          return { id, sse: r.text };
        }),
      );
      // The first flowchart run is followed live over SSE from its creation (events from a worker).
      let live: Promise<string[]> = Promise.resolve([]);
      const flowRuns = Promise.all(
        Array.from({ length: FLOW_RUNS }, async (_, i) => {
          const r = await api(url!, 'POST', `/api/flowcharts/${flowchartId}/runs`, {
            input: { message: `jam ${i}` },
          });
          assert.equal(r.status, 202, r.text);
          const id = r.json.flowchart_run_id as string;
          if (i === 0) live = flowEvents(`${url}/api/flowcharts/${flowchartId}/runs/${id}/events`);
          return id;
        }),
      );
      const [turns, streamed, runIds] = await Promise.all([worldTurns, messages, flowRuns]);

      assert.deepEqual(
        turns.map((t) => t.status ?? (t.data as Record<string, unknown> | undefined)?.status),
        Array(TURNS).fill('committed'),
        JSON.stringify(turns),
      );
      for (const { id, sse } of streamed) {
        // The stream carried every stored event of the turn, in order, each once: as plain serve streams them.
        const stored = await ts.store.all<{ seq: number; event: string }>(
          'SELECT seq, event FROM agent_session_events WHERE session_id = ? ORDER BY seq',
          [id],
        );
        assert.deepEqual(
          storedEventsOf(sse),
          stored.map((e) => `${e.seq} ${e.event}`),
        );
        const names = eventNames(sse);
        assert.ok(names.includes('tool_result'), `a tool result streamed: ${names.join(' ')}`);
        assert.equal(names.at(-1), 'done', `the stream ends with done: ${names.join(' ')}`);
        assert.equal(names.filter((n) => n === 'done').length, 1);
      }
      await waitUntil(
        'every flowchart run completed',
        async () => {
          for (const id of runIds) {
            const r = await api(url!, 'GET', `/api/flowcharts/${flowchartId}/runs/${id}`);
            if ((r.json.item as { status?: string } | undefined)?.status !== 'completed') return false;
          }
          return true;
        },
        { timeoutMs: 40_000, intervalMs: 200 },
      );
      // Followed live as it ran on a worker, the run's events are those a replay of it gives.
      const followed = await live;
      assert.ok(followed.includes('flowchart.run.updated completed'), followed.join('\n'));
      assert.deepEqual(
        followed,
        await flowEvents(`${url}/api/flowcharts/${flowchartId}/runs/${runIds[0]}/events`),
      );
      // Every run executed once, by a worker: none left (background runs a turn queued, such as the
      // user's profile update, are taken a moment later), and the API process made no call.
      let left: unknown[] = [];
      await waitUntil(
        'every run, background ones included, finished by a worker',
        async () => {
          left = await ts.store.all("SELECT run_id FROM engine_runs WHERE status IN ('queued', 'running')");
          return left.length === 0;
        },
        { timeoutMs: 20_000, intervalMs: 200 },
      ).catch(() => {});
      assert.deepEqual(left, []);
      const callers = await ts.store.all<{ pid: number }>('SELECT DISTINCT pid FROM source_processes');
      assert.ok(
        !callers.some((c) => Number(c.pid) === serve!.child.pid),
        'the API process invoked no source',
      );
      assert.equal(services.mcp.toolCalls('add'), MESSAGES, 'one MCP add call per message');
      const summarize = services.flow.requests.filter((r) =>
        JSON.stringify(r.body).includes("Summarize the customer's message"),
      );
      assert.equal(summarize.length, FLOW_RUNS, 'one summarize call per flowchart run');
      const head = await ts.store.get<{ head_turn: number }>(
        "SELECT head_turn FROM worlds WHERE world_slug = 'park'",
      );
      assert.equal(Number(head?.head_turn), TURNS);
      const attempts = await ts.store.all(
        "SELECT attempt_id FROM world_attempts WHERE status <> 'committed'",
      );
      assert.deepEqual(attempts, [], 'every attempt committed');

      serve.child.kill('SIGTERM');
      assert.equal(await serve.exited, 0, serve.stderr());
      for (const w of workers) w.cli.child.kill('SIGTERM');
      for (const w of workers) assert.equal(await w.cli.exited, 0, w.cli.stderr());
    } finally {
      serve?.child.kill('SIGKILL');
      for (const w of workers) w.cli.child.kill('SIGKILL');
      await services.close();
      await ts.dispose();
    }
  });
});

test('serve --no-work on a store without notifications (SQLite) is refused in one line, exit 2', async () => {
  const r = await runCli(['serve', '--port', '0', '--no-work'], {
    NOEMA_DB: `${testTempDir('noema-no-work-sqlite-')}/noema.db`,
    NOEMA_TOKEN: TOKEN,
  });
  assert.equal(r.code, 2, r.stderr);
  assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  assert.match(r.stderr, /serve --no-work needs a store that notifies other processes/);
});

async function readText(path: string): Promise<string> {
  const { readFile } = await import('node:fs/promises');
  return readFile(path, 'utf8');
}
