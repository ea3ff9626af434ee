/**
 * The product's central promise under crashes: `noema serve` runs a mixed load (world turns, agent
 * messages with an MCP tool call, flowchart runs) and is killed with SIGKILL at random points,
 * several times, and restarted on the same store. Afterwards every acknowledged run has reached a
 * final state, no logical model or tool call that had finished was made again (counted at the
 * scripted models, the toys and the MCP fixture, which live in this process and outlive serve),
 * world turns are whole, every agent run was closed once, and a SQLite file passes integrity_check.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startFixtureHttpServer } from '../../src/dev/mcp-fixture-server.ts';
import { loadScript, type ModelScript, startScriptedModel } from '../../src/dev/scripted-model/index.ts';
import { startToyServices } from '../../src/dev/toys/index.ts';
import type { Store } from '../../src/store/store.ts';
import { startModelRouter } from '../../src/surfaces/cli/demo/model-router.ts';
import { runCli, startCli } from '../../src/testing/cli.ts';
import { describeEachStore } from '../../src/testing/each-store.ts';

const example = (path: string) => fileURLToPath(new URL(`../../examples/${path}`, import.meta.url));
const PARK = example('park');
const AGENT = example('agents/calculator/agent.json');
const FLOWCHART = example('flowcharts/support-triage.json');
const TOKEN = 'crash-test-token-0123456789';
const FLOW_MODEL = 'scripted-flow';
/** How many times serve is killed, and how long each round of load runs before the kill (ms). */
const ROUNDS = 3;
const LOAD_MS = { min: 1000, max: 2500 };
/** The last restart's bound for every acknowledged run to finish. */
const SETTLE_MS = 60_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Every reply slowed down and streamed in small pieces, so a kill lands inside calls as often as between them. */
function slowed(path: string): ModelScript {
  const script = loadScript(path);
  const slow = <T extends { reply: object }>(rule: T) => ({
    ...rule,
    reply: { chunk_chars: 24, chunk_delay_ms: 2, delay_ms: 10, ...rule.reply },
  });
  return { ...script, rules: script.rules.map(slow) };
}

async function startServices() {
  const world = await startScriptedModel({ script: slowed(`${PARK}/model-script.json`) });
  const agent = await startScriptedModel({ script: slowed(example('agents/calculator/model-script.json')) });
  const flow = await startScriptedModel({ script: slowed(example('flowcharts/support-triage.script.json')) });
  const router = await startModelRouter({
    world: world.url,
    agent: agent.url,
    flow: flow.url,
    flowModel: FLOW_MODEL,
  });
  const toys = await startToyServices({ vendingStock: 1 });
  const mcp = await startFixtureHttpServer();
  return {
    models: [world, agent, flow],
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

interface Serve {
  url: string;
  kill(): Promise<void>;
  stop(): Promise<void>;
}

async function startServe(env: Record<string, string>): Promise<Serve> {
  const cli = startCli(['serve', '--port', '0'], env);
  const [, url] = await cli.waitFor(/(http:\/\/127\.0\.0\.1:\d+)/, 30_000);
  return {
    url: url!,
    async kill() {
      cli.child.kill('SIGKILL');
      await cli.exited;
    },
    async stop() {
      cli.child.kill('SIGTERM');
      await cli.exited;
    },
  };
}

async function api(
  serve: Serve,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; json: Record<string, unknown>; text: string }> {
  const res = await fetch(`${serve.url}${path}`, {
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

/** What the load was told had been accepted: the runs that must finish. */
interface Acknowledged {
  flowRuns: string[];
  sessions: Set<string>;
  worldTurns: number;
}

/** Three loops against one serve until `stop` is aborted (or serve dies under them). */
async function runLoad(
  serve: Serve,
  flowchartId: string,
  acked: Acknowledged,
  stop: AbortSignal,
): Promise<void> {
  const loop = async (body: () => Promise<unknown>) => {
    while (!stop.aborted) {
      try {
        await body();
      } catch {
        // serve was killed under the request: it was not acknowledged.
        await sleep(20);
      }
    }
  };
  let n = 0;
  await Promise.all([
    loop(async () => {
      if (acked.worldTurns >= 4) return sleep(50);
      const r = await api(serve, 'POST', '/worlds/park/turns', {});
      if (r.status === 200 || r.status === 201) acked.worldTurns++;
      else await sleep(100); // ATTEMPT_IN_PROGRESS while a dead process's attempt is reclaimed
    }),
    loop(async () => {
      const session = await api(serve, 'POST', '/sessions', {
        agent_label: 'calculator',
        user_id: `u${n++}`,
      });
      const id = session.json.session_id as string | undefined;
      if (!id) return sleep(50);
      const res = await fetch(`${serve.url}/sessions/${id}/messages`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ content: 'add 2 and 3' }),
      });
      if (res.status === 200) acked.sessions.add(id);
      await res.text();
    }),
    loop(async () => {
      const r = await api(serve, 'POST', `/api/flowcharts/${flowchartId}/runs`, {
        input: { message: `printer jam ${n++}` },
      });
      if (r.status === 202) acked.flowRuns.push(r.json.flowchart_run_id as string);
      await sleep(150);
    }),
  ]);
}

async function rows<T extends Record<string, unknown>>(
  store: Store,
  sql: string,
  params: Array<string | number> = [],
): Promise<T[]> {
  return await store.all<T>(sql, params);
}

/** Runs that have not reached a final state (a waiting ECS form would be final for this load: none is asked). */
async function unfinished(
  store: Store,
  serve: Serve,
  flowchartId: string,
  acked: Acknowledged,
): Promise<string[]> {
  const left: string[] = [];
  for (const r of await rows<{ run_id: string; status: string }>(
    store,
    "SELECT run_id, status FROM engine_runs WHERE status IN ('queued', 'running')",
  ))
    left.push(`engine run ${r.run_id} ${r.status}`);
  for (const r of await rows<{ attempt_id: string }>(
    store,
    "SELECT attempt_id FROM world_attempts WHERE status = 'running'",
  ))
    left.push(`world attempt ${r.attempt_id} running`);
  for (const r of await rows<{ session_id: string; status: string; run_status: string | null }>(
    store,
    `SELECT s.session_id, s.status, r.status AS run_status
       FROM agent_sessions s LEFT JOIN engine_runs r ON r.run_id = s.run_id
      WHERE s.status <> 'idle'`,
  ))
    left.push(`session ${r.session_id} ${r.status} (its run ${r.run_status})`);
  for (const id of acked.flowRuns) {
    const run = await api(serve, 'GET', `/api/flowcharts/${flowchartId}/runs/${id}`);
    const status = (run.json.item as { status?: string } | undefined)?.status;
    if (!['completed', 'failed', 'cancelled'].includes(status ?? ''))
      left.push(`flowchart run ${id} ${status}`);
  }
  return left;
}

describeEachStore('serve killed with SIGKILL under a mixed load', (factory) => {
  // Up to 3 rounds of load and 60 s to settle, on a loaded machine: more than the default 120 s.
  test('every acknowledged run finishes after restarts; no finished call is made again; world turns whole; one closing per agent run', {
    timeout: 240_000,
  }, async (t) => {
    await factory.withStore(async ({ store, url }) => {
      const services = await startServices();
      const env: Record<string, string> = {
        ...services.env,
        NOEMA_DB: url,
        NOEMA_TOKEN: TOKEN,
        NOEMA_RECOVERY_INTERVAL_MS: '200',
        NOEMA_RUN_LEASE_MS: '1500',
      };
      let serve: Serve | null = null;
      try {
        for (const args of [
          ['world', 'apply', PARK],
          ['world', 'create', 'park', '--scenario', PARK],
          ['agent', 'put', AGENT],
        ]) {
          const r = await runCli(args, env, 60_000);
          assert.equal(r.code, 0, `noema ${args.join(' ')}: ${r.stderr}`);
        }
        serve = await startServe(env);
        const created = await api(
          serve,
          'POST',
          '/api/flowcharts',
          JSON.parse(readFileSync(FLOWCHART, 'utf8')),
        );
        assert.equal(created.status, 201, created.text);
        const flowchartId = created.json.flowchart_id as string;

        const acked: Acknowledged = { flowRuns: [], sessions: new Set(), worldTurns: 0 };
        for (let round = 0; round < ROUNDS; round++) {
          const stop = new AbortController();
          const load = runLoad(serve, flowchartId, acked, stop.signal);
          // Killed at a random point, once this round's load was acknowledged at least once
          // (a loaded machine can take a while to answer the first request).
          const before = acked.flowRuns.length + acked.sessions.size + acked.worldTurns;
          await sleep(LOAD_MS.min + Math.random() * (LOAD_MS.max - LOAD_MS.min));
          const until = Date.now() + 15_000;
          // Nor before a flowchart run and an agent message were acknowledged at all, which the
          // checks below need: on a loaded machine an agent message can take the whole first round.
          const needed = Date.now() + 45_000;
          while (
            (acked.flowRuns.length + acked.sessions.size + acked.worldTurns === before &&
              Date.now() < until) ||
            ((acked.flowRuns.length === 0 || acked.sessions.size === 0) && Date.now() < needed)
          )
            await sleep(50);
          await serve.kill();
          stop.abort();
          await load;
          serve = await startServe(env);
        }

        // The last serve finishes what the dead ones left.
        const until = Date.now() + SETTLE_MS;
        let left = await unfinished(store, serve, flowchartId, acked);
        while (left.length > 0 && Date.now() < until) {
          await sleep(250);
          left = await unfinished(store, serve, flowchartId, acked);
        }
        assert.deepEqual(left, [], 'every run reaches a final state');
        // A crash interrupts calls, never a run's outcome: every acknowledged flowchart run completes.
        const flowFailed: string[] = [];
        for (const id of acked.flowRuns) {
          const run = await api(serve, 'GET', `/api/flowcharts/${flowchartId}/runs/${id}`);
          const item = run.json.item as { status?: string; error?: unknown };
          if (item.status !== 'completed')
            flowFailed.push(`${id} ${item.status} ${JSON.stringify(item.error)}`);
        }
        assert.deepEqual(flowFailed, [], 'every acknowledged flowchart run completed');
        assert.ok(acked.flowRuns.length > 0 && acked.sessions.size > 0, 'the load was acknowledged');

        // No finished call made again: within a run (a world's turn, across its attempts), a call
        // identical to one that had succeeded (same kind, node, subject, tool, round and request)
        // never starts after it.
        const calls = await rows<{
          source_invocation_id: string;
          key: string;
          status: string;
          started_at: number;
          ended_at: number | null;
          tool_name: string | null;
          run_id: string | null;
          attempt_id: string | null;
          invocation_kind: string;
          workflow_node_id: string | null;
          workflow_subject_entity_id: string | null;
          world_slug: string | null;
          attempted_turn: number | null;
        }>(
          store,
          `SELECT source_invocation_id, status, started_at, ended_at, tool_name, run_id, attempt_id,
                  invocation_kind, workflow_node_id, workflow_subject_entity_id, world_slug, attempted_turn,
                  COALESCE(world_slug || '#' || CAST(attempted_turn AS TEXT), run_id, '') || '|' || invocation_kind || '|' ||
                  COALESCE(workflow_node_id, '') || '|' || COALESCE(workflow_subject_entity_id, '') || '|' ||
                  COALESCE(ambient_source_id, '') || '|' || COALESCE(tool_name, '') || '|' ||
                  COALESCE(CAST(logical_generation_attempt AS TEXT), '') || '|' ||
                  COALESCE(CAST(tool_loop_round AS TEXT), '') || '|' || request_json AS key
             FROM source_invocations`,
        );
        const repeated: string[] = [];
        for (const done of calls.filter((c) => c.status === 'succeeded')) {
          for (const again of calls)
            if (again.key === done.key && again !== done && Number(again.started_at) >= Number(done.ended_at))
              repeated.push(
                `${again.source_invocation_id} (${again.status}, run ${again.run_id}, attempt ${again.attempt_id}) ` +
                  `repeats ${done.source_invocation_id} (run ${done.run_id}, attempt ${done.attempt_id}): ` +
                  `${done.invocation_kind} ${done.tool_name ?? ''} node ${done.workflow_node_id} subject ` +
                  `${done.workflow_subject_entity_id} world ${done.world_slug} turn ${done.attempted_turn}`,
              );
        }
        assert.deepEqual(repeated, [], 'no finished call is made again');

        // Counted where the calls land: every request had its durable row, and no more requests
        // reached a service than there were rows for it.
        const ids = new Set(calls.map((c) => c.source_invocation_id));
        for (const model of services.models)
          for (const q of model.requests) {
            const id = q.headers['x-noema-source-invocation-id'];
            assert.ok(typeof id === 'string' && ids.has(id), `model request ${String(id)} has its row`);
          }
        const rowsOf = (tool: string, status?: string) =>
          calls.filter((c) => c.tool_name === tool && (!status || c.status === status)).length;
        const candy = services.toys.requests.filter((r) => r.path === '/buy_candy').length;
        assert.ok(candy <= rowsOf('buy_candy'), `buy_candy: ${candy} requests, ${rowsOf('buy_candy')} rows`);
        assert.ok(candy >= rowsOf('buy_candy', 'succeeded'));
        const adds = services.mcp.toolCalls('add');
        assert.ok(adds <= rowsOf('add'), `add: ${adds} tool calls, ${rowsOf('add')} rows`);
        assert.ok(adds >= rowsOf('add', 'succeeded'));

        // World turns whole: every committed attempt is one turn row, turns 1..head without a gap.
        const world = await rows<{ head_turn: number }>(
          store,
          "SELECT head_turn FROM worlds WHERE world_slug = 'park'",
        );
        const turns = await rows<{ turn: number; attempt_id: string }>(
          store,
          "SELECT turn, attempt_id FROM world_turns WHERE world_slug = 'park' AND turn > 0 ORDER BY turn",
        );
        const committed = await rows<{ attempt_id: string; attempted_turn: number }>(
          store,
          "SELECT attempt_id, attempted_turn FROM world_attempts WHERE world_slug = 'park' AND status = 'committed' ORDER BY attempted_turn",
        );
        const head = Number(world[0]!.head_turn);
        assert.ok(head >= acked.worldTurns, `head ${head}, acknowledged ${acked.worldTurns}`);
        assert.deepEqual(
          turns.map((t) => [Number(t.turn), t.attempt_id]),
          committed.map((a) => [Number(a.attempted_turn), a.attempt_id]),
        );
        assert.deepEqual(
          turns.map((t) => Number(t.turn)),
          Array.from({ length: head }, (_, i) => i + 1),
        );

        // One closing per agent run: each run of a session has one answer (a failed run none).
        const closings = await rows<{ run_id: string; n: number }>(
          store,
          "SELECT run_id, COUNT(*) AS n FROM agent_session_messages WHERE role = 'assistant' GROUP BY run_id",
        );
        assert.deepEqual(
          closings.filter((c) => Number(c.n) !== 1),
          [],
          'one answer per agent run',
        );
        const answered = await rows<{ session_id: string }>(
          store,
          "SELECT DISTINCT session_id FROM agent_session_messages WHERE role = 'assistant'",
        );
        const withAnswer = new Set(answered.map((a) => a.session_id));
        const failedRuns = await rows<{ run_id: string; error: string }>(
          store,
          "SELECT run_id, error FROM engine_runs WHERE status = 'failed'",
        );
        assert.ok(
          [...acked.sessions].filter((s) => withAnswer.has(s)).length > 0,
          `some acknowledged message was answered (failed runs: ${JSON.stringify(failedRuns)})`,
        );

        const interrupted = calls.filter((c) => c.status === 'interrupted').length;
        t.diagnostic(
          `acknowledged: ${acked.flowRuns.length} flowchart runs, ${acked.sessions.size} agent messages, ` +
            `${acked.worldTurns} world turns (head ${head}); ${calls.length} calls, ${interrupted} interrupted by a kill`,
        );
        if (factory.kind === 'sqlite') {
          const check = await store.get<{ integrity_check: string }>('PRAGMA integrity_check');
          assert.equal(check?.integrity_check, 'ok');
        }
      } finally {
        await serve?.stop();
        await services.close();
      }
    });
  });
});
