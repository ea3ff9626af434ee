/**
 * What tracing export and metrics add to a run (the observability issue's target: export on to a
 * local receiver ≤ 1.05 × the run; export unconfigured: no measurable difference), on every
 * selected store, for two workloads:
 * - a world turn of 100 subjects (one ambient source, one tool call and a final patch each) against
 *   the zero-latency scripted model and toys, as `bench/world.bench.ts` runs it;
 * - a block of agent interactions with one MCP tool call each (reasoning LLM call → tool →
 *   reasoning LLM call), the scripted model and the MCP fixture each in its own process, as
 *   `bench/agent.bench.ts` runs them.
 * Each workload runs under five settings, round by round, the order rotated each round (same
 * warm-up, same rounds, medians):
 * - the baseline: `OTEL_SDK_DISABLED=true`, `NOEMA_METRICS=off` — no hook installed;
 * - export unconfigured (no `OTEL_*` variable), metrics off — also no hook: an A/A check of the noise;
 * - metrics on (the server's default), export unconfigured;
 * - export on (http/protobuf to an OTLP/HTTP receiver in this process), metrics off;
 * - export on and metrics on.
 * Each setting is a real `startObservability` (the SDK, the batch processor, the exporter, the
 * prom-client registry), its hooks installed for its own rounds only. A round's time includes
 * flushing its spans to the receiver (encoding and the POST), so the export's whole cost lands in
 * the round that made the spans. Each round's ratio to the baseline's round next to it is the
 * figure (paired, so load drift on the shared machine lands on both sides); wall and this
 * process's CPU time are both reported.
 * `BENCH_OBS_ROUNDS=n` (default 6 world rounds, 16 agent blocks; 2 and 4 in quick mode),
 * `BENCH_OBS_WARMUP=n` untimed rounds of every setting (default 1).
 */

import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { canonicalJson, sha256Hex } from '../src/core/index.ts';
import { installTelemetry, type Telemetry } from '../src/core/telemetry.ts';
import { startScriptedModel } from '../src/dev/scripted-model/index.ts';
import { startToyServices, toySources } from '../src/dev/toys/index.ts';
import { type Observability, startObservability } from '../src/observability/index.ts';
import { createAgentRuntime } from '../src/runtimes/agent/index.ts';
import {
  assembleScenario,
  createWorld,
  createWorldRuntime,
  putCognitionProfile,
  putCognitionWorkflow,
  putEnvironment,
  putJsonSchema,
  putResponseSource,
  putWorldPatchSchema,
} from '../src/runtimes/world/index.ts';
import { putMcpServer, putResponseSource as putSource } from '../src/sources/index.ts';
import type { Store } from '../src/store/store.ts';
import { startCli } from '../src/testing/cli.ts';
import { openTestStore, selectedStores } from '../src/testing/stores.ts';
import { reasoningReply } from '../src/testing/strict-replies.ts';
import { type Bench, type BenchContext, summarize } from './lib/harness.ts';

const SUBJECTS = 100;
const BLOCK = 10;

interface Setting {
  label: string;
  env: Record<string, string>;
  metrics: boolean;
}

/** A local OTLP/HTTP receiver: reads each POST whole and answers 200 (counts requests and bytes). */
async function startReceiver(): Promise<{
  url: string;
  requests: number;
  bytes: number;
  close(): Promise<void>;
}> {
  const state = { requests: 0, bytes: 0 };
  const server = createServer((req, res) => {
    req.on('data', (c: Buffer) => {
      state.bytes += c.length;
    });
    req.on('end', () => {
      state.requests++;
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    get requests() {
      return state.requests;
    },
    get bytes() {
      return state.bytes;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function settings(receiverUrl: string): Setting[] {
  const exportOn = { OTEL_EXPORTER_OTLP_ENDPOINT: receiverUrl, OTEL_SERVICE_NAME: 'noema-bench' };
  return [
    {
      label: 'hooks absent (OTEL_SDK_DISABLED=true, NOEMA_METRICS=off)',
      env: { ...exportOn, OTEL_SDK_DISABLED: 'true' },
      metrics: false,
    },
    { label: 'export unconfigured, metrics off', env: {}, metrics: false },
    { label: 'export unconfigured, metrics on (default)', env: {}, metrics: true },
    { label: 'export on (http/protobuf, local receiver), metrics off', env: exportOn, metrics: false },
    { label: 'export on and metrics on', env: exportOn, metrics: true },
  ];
}

/** Each setting started once; its hooks are installed only around its own rounds. */
async function startSettings(
  list: Setting[],
  store: Store,
): Promise<Array<{ setting: Setting; obs: Observability; hooks: Telemetry | null }>> {
  const out = [];
  for (const setting of list) {
    const obs = await startObservability({ env: setting.env, metrics: setting.metrics, store });
    const hooks = installTelemetry(null);
    out.push({ setting, obs, hooks });
  }
  return out;
}

/**
 * Runs `unit` under every setting, `warmup` untimed rounds then `rounds` timed ones, the settings'
 * order rotated each round, and adds the rows: each setting's wall and CPU p50 and its paired
 * ratio to the baseline (the first setting).
 */
async function compare(
  ctx: BenchContext,
  what: string,
  unitName: string,
  store: Store,
  receiverUrl: string,
  rounds: number,
  warmup: number,
  unit: () => Promise<void>,
): Promise<void> {
  const started = await startSettings(settings(receiverUrl), store);
  const wall = started.map(() => [] as number[]);
  const cpu = started.map(() => [] as number[]);
  try {
    for (let r = 0; r < warmup + rounds; r++) {
      const order = started.map((_, i) => (i + r) % started.length);
      if (r % 2 === 1) order.reverse();
      for (const i of order) {
        const { obs, hooks } = started[i]!;
        installTelemetry(hooks);
        const c0 = process.cpuUsage();
        const t0 = performance.now();
        await unit();
        await obs.flush();
        const ms = performance.now() - t0;
        const c = process.cpuUsage(c0);
        installTelemetry(null);
        if (r < warmup) continue;
        wall[i]!.push(ms);
        cpu[i]!.push((c.user + c.system) / 1000);
      }
    }
  } finally {
    installTelemetry(null);
    for (const s of started) await s.obs.shutdown(3_000);
  }
  const p50 = (xs: number[]) => summarize(xs.map((x) => x * 1000)).p50 / 1000;
  const base = started[0]!.setting.label;
  for (let i = 0; i < started.length; i++) {
    const label = started[i]!.setting.label;
    if (started[i]!.obs.droppedSpans() > 0)
      ctx.log(`${what}, ${label}: ${started[i]!.obs.droppedSpans()} spans dropped`);
    ctx.row({
      case: `${what}: ${label}`,
      metric: `wall p50 per ${unitName}`,
      unit: 'ms',
      value: p50(wall[i]!),
      ...(i > 0 ? { anchor: 'hooks absent', anchor_value: p50(wall[0]!) } : {}),
    });
    if (i === 0) continue;
    const paired = p50(wall[i]!.map((t, k) => t / wall[0]![k]!));
    // Printed as each workload ends, so a run cut short still says what it measured.
    ctx.log(`${what}: ${label}: wall ${paired.toFixed(3)}× the baseline (paired p50 of ${wall[i]!.length})`);
    const target = label.startsWith('export on') ? 1.05 : 1.0;
    ctx.row({
      case: `${what}: ${label} ÷ ${base.split(' (')[0]}`,
      metric: 'wall, paired p50',
      unit: '×',
      value: paired,
      anchor: 'target',
      anchor_value: target,
      ratio: Math.round((target / paired) * 1000) / 1000,
    });
    ctx.row({
      case: `${what}: ${label} ÷ ${base.split(' (')[0]}`,
      metric: 'CPU of this process, paired p50',
      unit: '×',
      value: p50(cpu[i]!.map((t, k) => t / cpu[0]![k]!)),
    });
  }
}

/** The world bench's turn: 100 subjects, each an ambient source, an LLM tool loop with one tool call, a patch. */
async function worldTurn(
  ctx: BenchContext,
  kind: 'sqlite' | 'postgres',
  env: Record<string, string>,
  receiverUrl: string,
): Promise<void> {
  const ts = await openTestStore(kind);
  const store = ts.store;
  try {
    const llm = await putResponseSource(store, {
      version: 1,
      label: 'chat',
      interface: { name: 'llm_chat_completions', model: '@chat', schema_delivery: 'response_format' },
    });
    const weather = await putResponseSource(store, toySources.weather);
    const fountain = await putResponseSource(store, toySources.fountain);
    const args = await putJsonSchema(store, {
      type: 'object',
      required: ['actor_id', 'turn'],
      properties: { actor_id: { type: 'string' }, turn: { type: 'integer' } },
    });
    const wp = await putWorldPatchSchema(store);
    const workflow = await putCognitionWorkflow(store, {
      version: 1,
      execution: 'per_subject_ordered',
      ambient_sources: [
        {
          id: 'weather',
          source_ref: weather,
          run: 'before_subject_workflow',
          scope: 'acting_subject',
          visible_to: 'acting_subject',
          request_template: { turn: { $from: '/world/attempted_turn' } },
          inject_as: '/ambient/weather',
        },
      ],
      nodes: [
        {
          id: 'act',
          type: 'llm_tool_loop',
          llm_source_ref: llm,
          prompt_template: {
            messages: [
              { role: 'user', content: '{{subject.rendered}} {{ambient.visible}} {{tools.available}}' },
            ],
          },
          available_tools: [
            {
              name: 'use_drinking_fountain',
              description: 'drink',
              source_ref: fountain,
              arguments_schema_ref: args,
            },
          ],
          max_generation_attempts: 1,
          max_tool_calls: 1,
          final_schema_ref: wp,
        },
      ],
      apply: { from: 'act.final' },
    });
    const envs = [];
    for (let i = 0; i < 10; i++)
      envs.push(await putEnvironment(store, { version: 1, label: `env${i}`, content: `place ${i}` }));
    const profile = await putCognitionProfile(store, { version: 1, label: 'bench', workflow_ref: workflow });
    const entities: Array<{ hash: string }> = [];
    await store.transaction(async (tx) => {
      for (let i = 0; i < SUBJECTS; i++) {
        const text = canonicalJson({
          version: 1,
          entity_id: `e${i}`,
          kind: 'agent',
          environment_label: `env${i % 10}`,
          state: `state of e${i}`,
          memory: '',
        });
        const hash = sha256Hex(text);
        await tx.run(
          'INSERT INTO entities (hash, content, label, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (hash) DO NOTHING',
          [hash, text, `e${i}`, Date.now()],
        );
        entities.push({ hash });
      }
    });
    const scenario = await assembleScenario(store, {
      version: 1,
      label: 'bench',
      environments: envs,
      entities,
      subjects: entities.map((_, i) => ({ entity_id: `e${i}`, cognition_profile_ref: profile })),
    });
    const runtime = createWorldRuntime(store, { env });
    let n = 0;
    try {
      await compare(
        ctx,
        `world turn of ${SUBJECTS} subjects [${kind}]`,
        'turn',
        store,
        receiverUrl,
        Number(process.env.BENCH_OBS_ROUNDS) || (ctx.quick ? 2 : 6),
        Number(process.env.BENCH_OBS_WARMUP ?? 1),
        async () => {
          const slug = `w${n++}`;
          await createWorld(store, { world_slug: slug, scenario_ref: { hash: scenario.hash } });
          const out = await runtime.runTurn({ world_slug: slug });
          if (out.status !== 'committed')
            throw new Error(`bench turn failed: ${JSON.stringify(out.failure)}`);
        },
      );
    } finally {
      await runtime.close();
    }
  } finally {
    await ts.dispose();
  }
}

const AGENT_SCRIPT = {
  rules: [
    {
      match: { message_matches: '✓ add' },
      reply: { json: reasoningReply({ thinking: 'done', response: 'The sum is 5.' }) },
    },
  ],
  default: {
    json: reasoningReply({ thinking: 'use add', tool_calls: [{ name: 'add', args: { a: 2, b: 3 } }] }),
  },
};

/** The agent bench's interaction, in blocks of BLOCK interactions. */
async function agentInteractions(
  ctx: BenchContext,
  kind: 'sqlite' | 'postgres',
  env: Record<string, string>,
  receiverUrl: string,
): Promise<void> {
  const { store, dispose } = await openTestStore(kind);
  const runtime = await createAgentRuntime(store, { env });
  try {
    const llm = await putSource(store, {
      version: 1,
      interface: { name: 'llm_chat_completions', model: '@chat', schema_delivery: 'response_format' },
    });
    const server = await putMcpServer(store, {
      version: 1,
      transport: { type: 'streamable_http', url_env: 'BENCH_MCP_URL' },
    });
    const { hash } = await runtime.putAgent({
      version: 1,
      label: 'bench',
      llm_source_ref: { hash: llm.hash },
      tools: [{ server_ref: { hash: server.hash }, tool_names: ['add'] }],
      mode: 'fast',
      max_iterations: 5,
      emotion: { enabled: false },
      memory: { long_term_limit: 0, working_memory_turns: 3 },
      synthesis: { enabled: false, threshold: 3 },
    });
    const { session_id } = await runtime.createSession({ agent_ref: { hash }, user_id: 'bench' });
    await compare(
      ctx,
      `${BLOCK} agent interactions with one tool call [${kind}]`,
      'block',
      store,
      receiverUrl,
      Number(process.env.BENCH_OBS_ROUNDS) || (ctx.quick ? 4 : 16),
      Number(process.env.BENCH_OBS_WARMUP ?? 1),
      async () => {
        for (let i = 0; i < BLOCK; i++) {
          const turn = await runtime.sendMessage(session_id, { content: 'add 2 and 3' });
          if (turn.response !== 'The sum is 5.') throw new Error(`unexpected reply ${turn.response}`);
        }
      },
    );
  } finally {
    await runtime.close();
    await dispose();
  }
}

export default {
  name: 'observability',
  description:
    'world turn and agent interactions with OTLP export on (local receiver) and metrics on vs no hooks (both stores)',
  async run(ctx) {
    const receiver = await startReceiver();
    // The world turn's model and toys in this process, as the world bench has them.
    const rules = [];
    for (let i = 0; i < SUBJECTS; i++) {
      rules.push({
        match: { subject: `e${i}`, last_message_contains: 'Tool result' },
        reply: {
          json: {
            kind: 'final_patch',
            tool_call: null,
            patch: {
              narration: 'done',
              effects: [{ op: 'set_entity_state', entity_id: `e${i}`, state: 'refreshed' }],
            },
          },
        },
      });
      rules.push({
        match: { subject: `e${i}` },
        reply: {
          json: {
            kind: 'tool_call',
            tool_call: { name: 'use_drinking_fountain', arguments: { actor_id: `e${i}`, turn: 1 } },
            patch: null,
          },
        },
      });
    }
    const model = await startScriptedModel({ script: { rules }, record: false });
    const toys = await startToyServices();
    // The agent's model and MCP server in processes of their own, as the agent bench has them.
    const dir = mkdtempSync(join(tmpdir(), 'noema-bench-obs-'));
    const scriptFile = join(dir, 'script.json');
    writeFileSync(scriptFile, JSON.stringify(AGENT_SCRIPT));
    const agentModel = startCli(['dev', 'scripted-model', '--script', scriptFile, '--port', '0']);
    const mcp = startCli(['dev', 'mcp-fixture', '--port', '0']);
    try {
      const [, agentModelUrl] = await agentModel.waitFor(/NOEMA_LLM_BASE_URL=(\S+)/);
      const [, mcpUrl] = await mcp.waitFor(/NOEMA_MCP_FIXTURE_URL=(\S+)/);
      for (const kind of selectedStores()) {
        await worldTurn(
          ctx,
          kind,
          { ...toys.env, NOEMA_LLM_BASE_URL: model.url, NOEMA_LLM_MODEL: 'scripted' },
          receiver.url,
        );
        await agentInteractions(
          ctx,
          kind,
          { NOEMA_LLM_BASE_URL: agentModelUrl!, NOEMA_LLM_MODEL: 'scripted', BENCH_MCP_URL: mcpUrl! },
          receiver.url,
        );
      }
      if (receiver.requests === 0) throw new Error('the receiver got no export: export was not on');
      ctx.log(`the receiver took ${receiver.requests} OTLP requests, ${receiver.bytes} bytes`);
    } finally {
      await model.close();
      await toys.close();
      agentModel.child.kill('SIGTERM');
      mcp.child.kill('SIGTERM');
      await agentModel.exited;
      await mcp.exited;
      await receiver.close();
    }
  },
} satisfies Bench;
