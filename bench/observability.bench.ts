/**
 * What trace export and metrics add to a run (the observability targets: export on to a local
 * receiver ≤ 1.05 × export off, CPU and p50; export unconfigured: no measurable difference), on
 * every selected store, for two workloads set up by the benches that own them:
 * - the world bench's turn (`bench/lib/world-turn.ts`): 100 subjects, one ambient source, one tool
 *   call and a final patch each, against the zero-latency scripted model and the toys, each in a
 *   process of its own (as a user's providers are: their serving is not the runs' thread's work);
 * - the agent bench's interaction (`bench/lib/agent-interaction.ts`), in blocks of 10 — a
 *   conversation: a new session, then 10 messages — one MCP tool call each, the scripted model and
 *   the MCP fixture each in a process of its own.
 * Each workload runs under five settings, round by round, in balanced orders (same
 * warm-up, same rounds, medians):
 * - no hooks: `OTEL_SDK_DISABLED=true`, `NOEMA_METRICS=off` — nothing installed, the baseline;
 * - unset: no `OTEL_*` variable, metrics off — also nothing installed (an A/A check of the noise);
 * - metrics on (the server's default), export unconfigured;
 * - export on (http/protobuf to an OTLP/HTTP receiver in a process of its own), metrics off;
 * - export on and metrics on.
 * Each setting is a real `startObservability`, its hooks installed for its own rounds only. A
 * round's wall time is its runs', as their caller waits for them: a run never waits for its spans'
 * export. After the runs the round flushes its spans to the receiver (handed to the export thread,
 * encoded, POSTed) before the next round starts, and its CPU times include that flush, so the
 * export's whole work lands in the round that made the spans; the wall time with the flush is
 * printed beside it. Ratios are paired — each round's time over the time of the other setting's
 * round beside it, then the median — for wall time and for this process's CPU time (user + system,
 * every thread) and the CPU time of the runs' thread alone: export on ÷ export off (metrics off,
 * and metrics on), metrics on ÷ off, unset ÷ no hooks.
 * After the timed rounds one more unit runs with recording hooks: its hook calls are then told
 * again to the export-on hooks alone, round after round — the spans made, encoded and sent without
 * the run around them, a steadier figure of the exporter's own share than the paired ratio on a
 * loaded machine (what it leaves out: the engine building its events for an observer, the
 * `traceparent` header). A build without the hook call sites is not made: what they cost when
 * nothing is installed is estimated instead — the call sites the recorded unit passed times the
 * cost of one unset call site (`telemetry()` answering null), measured here.
 * `BENCH_OBS_WORKLOADS=world|agent` runs one workload; `BENCH_OBS_ROUNDS=n` (default 30, a multiple of the 10 balanced orders; 3 world
 * rounds and 4 agent blocks in quick mode),
 * `BENCH_OBS_WARMUP=n` untimed rounds of every setting (default 1).
 */

import { installTelemetry, type Telemetry, telemetry } from '../src/core/telemetry.ts';
import { toySources } from '../src/dev/toys/index.ts';
import { type Observability, startObservability } from '../src/observability/index.ts';
import { createAgentRuntime } from '../src/runtimes/agent/index.ts';
import { createWorld, createWorldRuntime } from '../src/runtimes/world/index.ts';
import type { Store } from '../src/store/store.ts';
import { openTestStore, selectedStores } from '../src/testing/stores.ts';
import { putBenchAgent, startAgentServices } from './lib/agent-interaction.ts';
import { type Bench, type BenchContext, summarize } from './lib/harness.ts';
import { balancedOrders, formatRatio, type PairedRatio, pairedRatio, verdict } from './lib/paired.ts';
import { putTurnWorkflow, startTurnServices, TURN_SUBJECTS, turnScenario } from './lib/world-turn.ts';
import { startReceiver } from './observability/receiver.ts';

const BLOCK = 10;
/** `BENCH_OBS_WORKLOADS=world` or `agent` runs one of the two (default both). */
const WORKLOADS = new Set((process.env.BENCH_OBS_WORKLOADS ?? 'world,agent').split(','));

interface Setting {
  label: string;
  env: Record<string, string>;
  metrics: boolean;
}

const NO_HOOKS = 0;
const UNSET = 1;
const METRICS_ON = 2;
const EXPORT_ON = 3;
const BOTH_ON = 4;

function settings(receiverUrl: string): Setting[] {
  const exportOn = { OTEL_EXPORTER_OTLP_ENDPOINT: receiverUrl, OTEL_SERVICE_NAME: 'noema-bench' };
  return [
    { label: 'no hooks', env: { ...exportOn, OTEL_SDK_DISABLED: 'true' }, metrics: false },
    { label: 'unset', env: {}, metrics: false },
    { label: 'metrics on', env: {}, metrics: true },
    { label: 'export on', env: exportOn, metrics: false },
    { label: 'export and metrics on', env: exportOn, metrics: true },
  ];
}

/** The ratios printed: setting `on` over setting `off`, and the target when there is one. */
const PAIRS: Array<{ label: string; on: number; off: number; target?: number; aa?: true }> = [
  { label: 'export on ÷ export off (metrics off)', on: EXPORT_ON, off: NO_HOOKS, target: 1.05 },
  { label: 'export on ÷ export off (metrics on)', on: BOTH_ON, off: METRICS_ON, target: 1.05 },
  { label: 'metrics on ÷ off (export unset)', on: METRICS_ON, off: NO_HOOKS },
  { label: 'unset ÷ no hooks (A/A: neither installs a hook)', on: UNSET, off: NO_HOOKS, aa: true },
];

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
 * Hooks that record what they are told (to tell it again to other hooks) and count the call sites
 * that reached them.
 */
function recordingHooks(): { hooks: Telemetry; visits(): number; replay(into: Telemetry): void } {
  const calls: Array<(t: Telemetry) => void> = [];
  let traceparents = 0;
  return {
    hooks: {
      runCreated: (run) => void calls.push((t) => t.runCreated?.(run)),
      engineEvent: (e) => void calls.push((t) => t.engineEvent?.(e)),
      invocationFinished: (inv) => void calls.push((t) => t.invocationFinished?.(inv)),
      storeCommit: (seconds) => void calls.push((t) => t.storeCommit?.(seconds)),
      aroundCall: (scope, fn) => {
        calls.push((t) => t.aroundCall?.(scope, () => t.outgoingTraceparent?.()));
        return fn();
      },
      outgoingTraceparent: () => {
        traceparents++;
        return undefined;
      },
    },
    visits: () => calls.length + traceparents,
    replay(into) {
      for (const call of calls) call(into);
    },
  };
}

/** Nanoseconds an unset call site costs: `telemetry()` answering null, the hook not called. */
function unsetCallSiteNs(): number {
  installTelemetry(null);
  const n = 5_000_000;
  let found = 0;
  const best: number[] = [];
  for (let r = 0; r < 5; r++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < n; i++) if (telemetry()?.engineEvent !== undefined) found++;
    best.push(Number(process.hrtime.bigint() - t0) / n);
  }
  if (found !== 0) throw new Error('hooks were installed');
  return Math.min(...best);
}

const p50 = (xs: number[]) => summarize(xs.map((x) => x * 1000)).p50 / 1000;

/**
 * Runs `unit` under every setting, `warmup` untimed rounds then `rounds` timed ones, the settings in
 * balanced orders (each follows every other equally often over 10 rounds: what a round leaves behind
 * falls on every setting alike), and prints each setting's p50 and the paired ratios of PAIRS.
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
  const orders = balancedOrders(started.length);
  const wall = started.map(() => [] as number[]);
  const flushed = started.map(() => [] as number[]);
  const cpu = started.map(() => [] as number[]);
  const thread = started.map(() => [] as number[]);
  const ownWork: number[] = [];
  const ownThread: number[] = [];
  let visits = 0;
  try {
    for (let r = 0; r < warmup + rounds; r++) {
      for (const i of orders[r % orders.length]!) {
        const { obs, hooks } = started[i]!;
        installTelemetry(hooks);
        const c0 = process.cpuUsage();
        const m0 = process.threadCpuUsage();
        const t0 = performance.now();
        await unit();
        const ms = performance.now() - t0;
        await obs.flush();
        const withFlush = performance.now() - t0;
        const c = process.cpuUsage(c0);
        const m = process.threadCpuUsage(m0);
        installTelemetry(null);
        if (r < warmup) continue;
        wall[i]!.push(ms);
        flushed[i]!.push(withFlush);
        cpu[i]!.push((c.user + c.system) / 1000);
        thread[i]!.push((m.user + m.system) / 1000);
      }
    }
    // One more unit, untimed, recorded: its call sites, and its hook calls told again to the
    // export-on hooks alone — the spans made, encoded and sent without the run around them.
    const recorded = recordingHooks();
    installTelemetry(recorded.hooks);
    try {
      await unit();
    } finally {
      installTelemetry(null);
    }
    const { hooks, obs } = started[EXPORT_ON]!;
    for (let k = 0; k < 1 + rounds; k++) {
      const c0 = process.cpuUsage();
      const m0 = process.threadCpuUsage();
      recorded.replay(hooks!);
      await obs.flush();
      const c = process.cpuUsage(c0);
      const m = process.threadCpuUsage(m0);
      if (k > 0) {
        ownWork.push((c.user + c.system) / 1000);
        ownThread.push((m.user + m.system) / 1000);
      }
    }
    visits = recorded.visits();
  } finally {
    installTelemetry(null);
    for (const s of started) await s.obs.shutdown(3_000);
  }
  for (let i = 0; i < started.length; i++) {
    const { setting, obs } = started[i]!;
    if (obs.droppedSpans() > 0) ctx.log(`${what}, ${setting.label}: ${obs.droppedSpans()} spans dropped`);
    ctx.row({
      case: `${what}: ${setting.label}`,
      metric: `wall p50 per ${unitName}`,
      unit: 'ms',
      value: p50(wall[i]!),
    });
    ctx.row({
      case: `${what}: ${setting.label}`,
      metric: `CPU p50 per ${unitName}`,
      unit: 'ms',
      value: p50(cpu[i]!),
    });
  }
  for (const pair of PAIRS) {
    const c = pairedRatio(cpu[pair.on]!, cpu[pair.off]!);
    const t = pairedRatio(thread[pair.on]!, thread[pair.off]!);
    const w = pairedRatio(wall[pair.on]!, wall[pair.off]!);
    const wf = pairedRatio(flushed[pair.on]!, flushed[pair.off]!);
    const judged = (r: PairedRatio) =>
      pair.target
        ? ` ${verdict(r, pair.target)}`
        : pair.aa
          ? r.low <= 1 && r.high >= 1
            ? ' (holds 1)'
            : ' (misses 1: the pairing is biased)'
          : '';
    // Printed as each workload ends, so a run cut short still says what it measured.
    ctx.log(
      `${what}: ${pair.label}: CPU ${formatRatio(c)}${judged(c)}, the runs' thread's CPU ${formatRatio(t)}${judged(t)}, wall ${formatRatio(w)}${judged(w)}, wall with the flush after it ${formatRatio(wf)} (paired p50 of ${c.rounds} rounds, 95 % bootstrap interval${pair.target ? `; target ≤ ${pair.target}` : ''})`,
    );
    const target = pair.target ? { anchor: 'target', anchor_value: pair.target } : {};
    for (const [metric, r, judgedBy] of [
      ['CPU of this process', c, target],
      ["CPU of the runs' thread", t, target],
      ['wall', w, target],
      ['wall with the flush after it', wf, {}],
    ] as const) {
      ctx.row({
        case: `${what}: ${pair.label}`,
        metric: `${metric}, paired p50`,
        unit: '×',
        value: r.p50,
        ...judgedBy,
      });
      ctx.row({
        case: `${what}: ${pair.label}`,
        metric: `${metric}, 95 % interval low`,
        unit: '×',
        value: r.low,
      });
      ctx.row({
        case: `${what}: ${pair.label}`,
        metric: `${metric}, 95 % interval high`,
        unit: '×',
        value: r.high,
      });
    }
  }
  const own = p50(ownWork) / p50(cpu[NO_HOOKS]!);
  const ownOnThread = p50(ownThread) / p50(thread[NO_HOOKS]!);
  ctx.log(
    `${what}: export on, the hooks' own work (a ${unitName}'s hook calls replayed: its spans made, encoded and sent) ÷ the ${unitName}'s CPU: ${own.toFixed(3)}; on the runs' thread alone: ${ownOnThread.toFixed(3)} (p50 of ${ownWork.length})`,
  );
  ctx.row({
    case: `${what}: export on, the hooks' own work (a ${unitName}'s hook calls replayed) ÷ no hooks`,
    metric: 'CPU p50 ÷ CPU p50',
    unit: '×',
    value: 1 + own,
  });
  // Unset, each hook call site is a null check: how many a unit passes, times what one costs.
  const ns = unsetCallSiteNs();
  const share = (visits * ns) / 1e6 / p50(cpu[NO_HOOKS]!);
  ctx.log(
    `${what}: unset ÷ a build without hook call sites (estimated): ≈ ${visits} call sites × ${ns.toFixed(1)} ns = ${((visits * ns) / 1000).toFixed(1)} µs per ${unitName}, ${(share * 100).toFixed(4)} % of its CPU`,
  );
  ctx.row({
    case: `${what}: unset ÷ a build without hook call sites (estimated)`,
    metric: 'call sites × unset cost ÷ CPU',
    unit: '×',
    value: 1 + share,
  });
}

/** The world bench's turn. */
async function worldTurns(
  ctx: BenchContext,
  kind: 'sqlite' | 'postgres',
  env: Record<string, string>,
  receiverUrl: string,
): Promise<void> {
  const ts = await openTestStore(kind);
  const store = ts.store;
  try {
    const { workflow } = await putTurnWorkflow(store, toySources);
    const scenario = await turnScenario(store, TURN_SUBJECTS, TURN_SUBJECTS, workflow);
    const runtime = createWorldRuntime(store, { env });
    let n = 0;
    try {
      await compare(
        ctx,
        `world turn of ${TURN_SUBJECTS} subjects [${kind}]`,
        'turn',
        store,
        receiverUrl,
        Number(process.env.BENCH_OBS_ROUNDS) || (ctx.quick ? 3 : 30),
        Number(process.env.BENCH_OBS_WARMUP ?? 1),
        async () => {
          const slug = `w${n++}`;
          await createWorld(store, { world_slug: slug, scenario_ref: { hash: scenario } });
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
    const { hash } = await putBenchAgent(store, runtime);
    await compare(
      ctx,
      `${BLOCK} agent interactions with one tool call [${kind}]`,
      'block',
      store,
      receiverUrl,
      Number(process.env.BENCH_OBS_ROUNDS) || (ctx.quick ? 4 : 30),
      Number(process.env.BENCH_OBS_WARMUP ?? 1),
      async () => {
        // A block is a conversation, as the agent bench has them: a new session, then its messages.
        const { session_id } = await runtime.createSession({ agent_ref: { hash }, user_id: 'bench' });
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
    'world turn and agent interactions with OTLP export on (local receiver) and metrics on vs off (both stores)',
  async run(ctx) {
    const receiver = await startReceiver();
    const turn = await startTurnServices(TURN_SUBJECTS);
    const agent = await startAgentServices();
    try {
      for (const kind of selectedStores()) {
        if (WORKLOADS.has('world')) await worldTurns(ctx, kind, turn.env, receiver.url);
        if (WORKLOADS.has('agent')) await agentInteractions(ctx, kind, agent.env, receiver.url);
      }
      const got = await receiver.stats();
      if (got.requests === 0) throw new Error('the receiver got no export: export was not on');
      ctx.log(`the receiver took ${got.requests} OTLP requests, ${got.bytes} bytes`);
    } finally {
      await turn.close();
      await agent.close();
      await receiver.close();
    }
  },
} satisfies Bench;
