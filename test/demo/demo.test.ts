// `noema demo` end to end as a real child process: the park world for five turns, an agent session
// with a tool call and an auto-answered ECS form, a flowchart run — checked in the store it wrote —
// then continuing, starting over, the --real-model guard, and serve mode's one-time login link.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadScript, startScriptedModel } from '../../src/dev/scripted-model/index.ts';
import { listSessions } from '../../src/runtimes/agent/index.ts';
import { listFlowRuns } from '../../src/runtimes/flow/index.ts';
import { getWorld, listAttempts } from '../../src/runtimes/world/index.ts';
import type { Store } from '../../src/store/store.ts';
import { describeEachStore } from '../../src/testing/each-store.ts';
import { runDemo, startDemo, tempDir } from './helpers.ts';

async function contractsOfSession(store: Store, session_id: string) {
  return store.all<{ action_type: string; status: string }>(
    `SELECT c.action_type, c.status FROM engine_contracts c
       JOIN engine_runs r ON r.run_pk = c.run_pk
      WHERE r.run_id IN (SELECT run_id FROM agent_session_messages WHERE session_id = ?)
      ORDER BY c.created_at`,
    [session_id],
  );
}

describeEachStore('noema demo', (factory) => {
  test('runs five park turns, a session with a tool call and an answered form, and a flowchart; re-running continues', async () =>
    factory.withStore(async ({ store, url }) => {
      const r = await runDemo(tempDir(), ['--no-serve'], { NOEMA_DB: url });
      assert.equal(r.code, 0, r.stderr + r.stdout);
      const out = r.stdout;
      // The summary names what happened and where to look.
      assert.match(out, /world park-demo \(new\): turns 1–5 committed/);
      assert.match(out, /turn 1: Bob presses the vending-machine button.*Alice .* empty.*The ant .* eats it/);
      assert.match(out, /turn 2: .*spam text.*PA/);
      assert.match(out, /turn 3: .*temperature drops/);
      assert.match(out, /tool calls add COMPLETED; forms "Pick a day" answered \{"day":"monday"\}/);
      assert.match(
        out,
        /flowchart run \S+: completed, \d+ node runs \(start, llm, memory, plan, milestone, decision, end\)/,
      );
      const [, sessionId] = out.match(/agent session\s+\/sessions\/(\S+)/) ?? [];
      assert.ok(sessionId, out);
      assert.match(out, /world\s+\/worlds\/park-demo/);
      assert.match(out, /turn 1 attempt\s+\/attempts\/\S+/);
      assert.match(out, /flowchart run\s+\/flowchart-runs\/\S+/);

      // The store holds what the summary says.
      const world = await getWorld(store, { world_slug: 'park-demo' });
      assert.equal(world.head_turn, 5);
      const attempts = await listAttempts(store, { world_slug: 'park-demo' });
      assert.equal(attempts.items.filter((a) => a.status === 'committed').length, 5);
      assert.equal(world.entities.vending_machine?.state, 'empty');
      assert.equal(world.entities.crumb?.state, 'gone');
      assert.match(world.entities.alice?.memory ?? '', /empty/);
      const sessions = await listSessions(store, { user_id: 'demo', limit: 10 });
      assert.deepEqual(
        sessions.items.map((s) => s.session_id),
        [sessionId],
      );
      const contracts = await contractsOfSession(store, sessionId!);
      assert.ok(
        contracts.some((c) => c.action_type === 'tool_call' && c.status === 'COMPLETED'),
        JSON.stringify(contracts),
      );
      assert.ok(
        contracts.some((c) => c.action_type === 'ecs_request' && c.status === 'COMPLETED'),
        JSON.stringify(contracts),
      );
      const [, runId] = out.match(/\/flowchart-runs\/(\S+)/) ?? [];
      const flowchartId = (
        await store.get<{ flowchart_id: string }>(
          'SELECT flowchart_id FROM flowchart_runs WHERE flowchart_run_id = ?',
          [runId ?? ''],
        )
      )?.flowchart_id;
      const runs = await listFlowRuns(store, flowchartId!);
      assert.deepEqual(
        runs.items.map((x) => x.flowchart_run_id),
        [runId],
      );

      // Re-running continues the same store: the same world, two more turns, the same flowchart.
      const again = await runDemo(tempDir(), ['--no-serve', '--turns', '2'], { NOEMA_DB: url });
      assert.equal(again.code, 0, again.stderr + again.stdout);
      assert.match(again.stdout, /world park-demo \(continued\): turns 6–7 committed/);
      assert.equal((await getWorld(store, { world_slug: 'park-demo' })).head_turn, 7);
      assert.equal((await listFlowRuns(store, flowchartId!)).items.length, 2);
    }));
});

test('the default store is ./.noema/demo.db; --fresh starts it over', async () => {
  const dir = tempDir();
  const first = await runDemo(dir, ['--no-serve', '--turns', '2']);
  assert.equal(first.code, 0, first.stderr + first.stdout);
  assert.ok(existsSync(join(dir, '.noema', 'demo.db')));
  assert.match(first.stdout, /store \S*\.noema\/demo\.db/);
  const fresh = await runDemo(dir, ['--no-serve', '--turns', '1', '--fresh']);
  assert.equal(fresh.code, 0, fresh.stderr + fresh.stdout);
  assert.match(fresh.stdout, /world park-demo \(new\): turns 1–1 committed/);
  assert.doesNotMatch(fresh.stdout, /turn 2:/);
});

test('--real-model without NOEMA_LLM_BASE_URL and NOEMA_LLM_MODEL is one line, exit 2, and creates nothing', async () => {
  const dir = tempDir();
  const r = await runDemo(dir, ['--real-model', '--no-serve']);
  assert.equal(r.code, 2, r.stdout);
  assert.equal(r.stdout, '');
  const lines = r.stderr.trim().split('\n');
  assert.equal(lines.length, 1, r.stderr);
  assert.match(lines[0]!, /^noema: --real-model needs NOEMA_LLM_BASE_URL and NOEMA_LLM_MODEL set/);
  assert.equal(existsSync(join(dir, '.noema')), false);
});

test("--real-model runs the world and the agent against the operator's model, not the script", async () => {
  const park = loadScript(fileURLToPath(new URL('../../examples/park/model-script.json', import.meta.url)));
  const agent = loadScript(
    fileURLToPath(new URL('../../examples/agents/calculator/model-script.json', import.meta.url)),
  );
  // Stands in for the operator's OpenAI-compatible endpoint: it records every request it gets.
  const model = await startScriptedModel({
    script: { rules: [...agent.rules, ...park.rules], default: park.default! },
  });
  try {
    const r = await runDemo(tempDir(), ['--real-model', '--no-serve', '--turns', '1'], {
      NOEMA_LLM_BASE_URL: model.url,
      NOEMA_LLM_MODEL: 'operator-model',
    });
    assert.equal(r.code, 0, r.stderr + r.stdout);
    assert.match(r.stdout, /model operator-model\)/);
    const subjects = new Set(model.requests.map((q) => q.headers['x-noema-subject']).filter(Boolean));
    assert.deepEqual([...subjects].sort(), ['alice', 'ant', 'bob']);
    assert.ok(model.requests.every((q) => q.body.model === 'operator-model'));
    assert.ok(
      model.requests.some((q) => JSON.stringify(q.body.messages).includes('add 2 and 3')),
      "the agent session asked the operator's model",
    );
    assert.ok(
      !model.requests.some((q) => JSON.stringify(q.body.messages).includes('Summarize the customer')),
      'the flowchart stays on its script',
    );
  } finally {
    await model.close();
  }
});

test('bad flags are one line and exit 2 before anything is created', async () => {
  const cases: Array<[string[], RegExp]> = [
    [['--turns', '0'], /^noema: --turns is invalid: "0" is not an integer from 1 to 1000$/],
    [['--turns', '2x'], /^noema: --turns is invalid/],
    [['--port', '70000'], /^noema: --port is invalid/],
    [
      ['--fresh', '--db', 'postgres://postgres@127.0.0.1:5432/demo'],
      /^noema: --fresh starts over only an embedded/,
    ],
  ];
  for (const [args, message] of cases) {
    const dir = tempDir();
    const r = await runDemo(dir, [...args, '--no-serve']);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.match(r.stderr.trim(), message);
    assert.equal(existsSync(join(dir, '.noema')), false, args.join(' '));
  }
});

test('a turn that fails stops the demo with exit 1 naming the attempt; nothing after it runs', async () => {
  // The operator's model is down: every completion answers HTTP 400 (not retried).
  const model = await startScriptedModel({
    script: { rules: [], default: { error: { status: 400, body: { error: { message: 'no such model' } } } } },
  });
  try {
    const r = await runDemo(tempDir(), ['--real-model', '--no-serve'], {
      NOEMA_LLM_BASE_URL: model.url,
      NOEMA_LLM_MODEL: 'missing-model',
    });
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stderr, /^noema: turn 1 failed \(attempt [0-9a-f-]{36}\): /m);
    assert.match(r.stderr, /noema world log park-demo shows its trace/);
    assert.doesNotMatch(r.stdout, /Agent session|Where to look/);
  } finally {
    await model.close();
  }
});

test('an agent session whose every reasoning attempt fails stops the demo with exit 1 naming the session', async () => {
  const park = loadScript(fileURLToPath(new URL('../../examples/park/model-script.json', import.meta.url)));
  // The park's turns are answered; every call of the agent's session gets prose, never its JSON.
  const model = await startScriptedModel({
    script: {
      rules: [
        { match: { any_message_contains: 'add 2 and 3' }, reply: { text: 'I would rather chat.' } },
        ...park.rules,
      ],
      default: park.default!,
    },
  });
  try {
    const r = await runDemo(tempDir(), ['--real-model', '--no-serve', '--turns', '1'], {
      NOEMA_LLM_BASE_URL: model.url,
      NOEMA_LLM_MODEL: 'operator-model',
    });
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(
      r.stderr,
      /^noema: agent session [0-9a-f-]{36} failed \(run [0-9a-f-]{36}\): GENERATION_FAILED: /m,
    );
    assert.match(r.stderr, /open \/sessions\/[0-9a-f-]{36}/);
    assert.doesNotMatch(r.stdout, /\[COMPLETED\] Agent session|Flowchart run|Where to look/);
  } finally {
    await model.close();
  }
});

test('serve mode prints a one-time login link that logs a browser in and opens the demo world', async () => {
  const dir = tempDir();
  const demo = startDemo(dir, ['--turns', '1', '--port', '0']);
  try {
    const [, link, base] = await demo.waitFor(
      /browser: ((http:\/\/127\.0\.0\.1:\d+)\/login\?once=\S+)/,
      90_000,
    );
    assert.match(demo.stdout(), new RegExp(`world\\s+${base}/worlds/park-demo`));
    const login = await fetch(link!, { redirect: 'manual' });
    assert.equal(login.status, 303);
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]!;
    assert.match(cookie, /^noema_session=/);
    const page = await fetch(`${base}/worlds/park-demo?format=json`, { headers: { cookie } });
    assert.equal(page.status, 200);
    assert.equal(((await page.json()) as { head_turn?: number; turn?: number }).turn, 1);
    const reused = await fetch(link!, { redirect: 'manual' });
    assert.notEqual(reused.status, 303, 'the link works once');
    const denied = await fetch(`${base}/worlds/park-demo?format=json`);
    assert.equal(denied.status, 401);
  } finally {
    demo.child.kill('SIGTERM');
    assert.equal(await demo.exited, 0, demo.stderr());
  }
});

test("while serving, the browser's actions run on the demo's models and toys: a world turn, an agent message, a flowchart run", async () => {
  const token = 'demo-serve-test-token';
  const demo = startDemo(tempDir(), ['--turns', '1', '--port', '0'], { NOEMA_TOKEN: token });
  try {
    const [, base] = await demo.waitFor(/browser: (http:\/\/127\.0\.0\.1:\d+)\/login\?once=/, 90_000);
    assert.match(demo.stdout(), /started from the browser use the demo's scripted models and toy services/);
    const [, sessionPath] = demo.stdout().match(/agent session\s+http:\/\/\S+?(\/sessions\/\S+)/) ?? [];
    const [, flowchartId] = demo.stdout().match(/flowchart run\s+http:\/\/\S+?\/flowchart-runs\/(\S+)/) ?? [];
    assert.ok(sessionPath && flowchartId, demo.stdout());
    const call = async (method: string, path: string, body?: unknown) => {
      const r = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: r.status, text: await r.text() };
    };

    // Turn 2 of the script: the PA toy speaks and the phone toy delivers spam to Bob.
    const turn = await call('POST', '/worlds/park-demo/turns', {});
    assert.equal(turn.status, 201, turn.text);
    const committed = JSON.parse(turn.text) as {
      turn: number;
      status: string;
      patches: Array<{ narration: string }>;
    };
    assert.equal(committed.status, 'committed');
    assert.equal(committed.turn, 2);
    assert.match(committed.patches.map((p) => p.narration).join(' '), /spam text.*PA/);

    // The agent's script and its MCP tool answer a message sent to the demo's session.
    const message = await call('POST', `${sessionPath}/messages`, { content: 'add 2 and 3' });
    assert.equal(message.status, 200, message.text);
    assert.match(message.text, /event: tool_result\ndata: [^\n]*"status":"COMPLETED"/);
    assert.match(message.text, /event: done\ndata: [^\n]*"response":"2 \+ 3 = 5"/);

    // A flowchart run started from the browser runs on the flowchart's script to the end.
    const flowStatus = await runFlowchartFromBrowser(call, flowchartId!);
    assert.equal(flowStatus, 'completed');
  } finally {
    demo.child.kill('SIGTERM');
    assert.equal(await demo.exited, 0, demo.stderr());
  }
  assert.match(demo.stdout(), /received SIGTERM, shutting down/);
});

/** Starts a run of the demo flowchart (found through its run's page) and waits for its end state. */
async function runFlowchartFromBrowser(
  call: (method: string, path: string, body?: unknown) => Promise<{ status: number; text: string }>,
  flowchartRunId: string,
): Promise<string> {
  const page = await call('GET', `/flowchart-runs/${flowchartRunId}?format=json`);
  assert.equal(page.status, 200, page.text);
  const flowchartId = String((JSON.parse(page.text) as { flowchart_id?: string }).flowchart_id);
  const started = await call('POST', `/api/flowcharts/${flowchartId}/runs`, {
    input: { message: 'The printer is on fire.' },
  });
  assert.equal(started.status, 202, started.text);
  const { flowchart_run_id } = JSON.parse(started.text) as { flowchart_run_id: string };
  for (let i = 0; i < 300; i++) {
    const r = await call('GET', `/api/flowcharts/${flowchartId}/runs/${flowchart_run_id}`);
    const status = String((JSON.parse(r.text) as { item: { status: string } }).item.status);
    if (status !== 'running' && status !== 'queued' && status !== 'pending') return status;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return 'timed out';
}
