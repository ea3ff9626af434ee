/**
 * The system the scale-out benchmark measures: one PostgreSQL database, the scripted model (every
 * reply held for an adjustable latency) and the MCP fixture in this process, an API process
 * (`serve --no-work`), and a pool of `noema worker` processes grown and shrunk between rounds.
 */
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startFixtureHttpServer } from '../../src/dev/mcp-fixture-server.ts';
import { type ModelScript, startScriptedModel } from '../../src/dev/scripted-model/index.ts';
import { type RunningCli, runCli, startCli } from '../../src/testing/cli.ts';
import { openTestStore, type TestStore } from '../../src/testing/stores.ts';
import { reasoningReply } from '../../src/testing/strict-replies.ts';
import { startWorkerCli, type WorkerProcess } from '../../src/testing/worker-kit.ts';

const example = (path: string) => fileURLToPath(new URL(`../../examples/${path}`, import.meta.url));
export const TOKEN = 'scaleout-bench-token-0123456789';

/** The support-triage flowchart's rules, then the agent's: a tool call, and the answer after it. */
function script(): ModelScript {
  const flow = JSON.parse(
    readFileSync(example('flowcharts/support-triage.script.json'), 'utf8'),
  ) as ModelScript;
  return {
    rules: [
      ...flow.rules,
      {
        match: { message_matches: '✓ add' },
        reply: { json: reasoningReply({ thinking: 'done', response: 'The sum is 5.' }) },
      },
    ],
    default: {
      json: reasoningReply({ thinking: 'use add', tool_calls: [{ name: 'add', args: { a: 2, b: 3 } }] }),
    },
  };
}

/** An agent whose message is two model calls around one MCP tool call (no emotion, memory or synthesis calls). */
function writeAgent(dir: string): string {
  for (const f of ['llm.json', 'mcp-server.json'])
    copyFileSync(example(`agents/calculator/${f}`), join(dir, f));
  const path = join(dir, 'agent.json');
  writeFileSync(
    path,
    JSON.stringify({
      version: 1,
      label: 'bench_adder',
      llm_source_ref: { file: 'llm.json' },
      tools: [{ server_ref: { file: 'mcp-server.json' }, tool_names: ['add'] }],
      mode: 'fast',
      max_iterations: 5,
      emotion: { enabled: false },
      memory: { long_term_limit: 0, working_memory_turns: 3 },
      synthesis: { enabled: false, threshold: 3 },
    }),
  );
  return path;
}

export interface Cluster {
  ts: TestStore;
  env: Record<string, string>;
  /** The `serve --no-work` API's base URL. */
  api: string;
  flowchartId: string;
  /** Every model reply is held this long (ms) before it starts. */
  setLatency(ms: number): void;
  workers: WorkerProcess[];
  /** Starts or drains workers until `n` run. */
  scaleTo(n: number): Promise<void>;
  /** Starts another process on the same store (plain `serve` for the in-process side). */
  start(args: string[]): RunningCli;
  close(): Promise<void>;
}

export async function startCluster(options: { concurrency: number; intervalMs: number }): Promise<Cluster> {
  let latencyMs = 0;
  const model = await startScriptedModel({
    script: script(),
    record: false,
    onRequest: () => (latencyMs > 0 ? new Promise((r) => setTimeout(r, latencyMs)) : undefined),
  });
  const mcp = await startFixtureHttpServer();
  const ts = await openTestStore('postgres');
  const dir = mkdtempSync(join(tmpdir(), 'noema-bench-scaleout-'));
  const env: Record<string, string> = {
    NOEMA_DB: ts.url,
    NOEMA_DATA_DIR: dir,
    NOEMA_TOKEN: TOKEN,
    NOEMA_LLM_BASE_URL: model.url,
    NOEMA_LLM_MODEL: 'scripted',
    NOEMA_MCP_FIXTURE_URL: mcp.url,
    NOEMA_RECOVERY_INTERVAL_MS: String(options.intervalMs),
  };
  const children: RunningCli[] = [];
  const workers: WorkerProcess[] = [];
  const stop = async (cli: RunningCli) => {
    cli.child.kill('SIGTERM');
    await cli.exited;
  };
  try {
    const put = await runCli(['agent', 'put', writeAgent(dir)], env, 60_000);
    if (put.code !== 0) throw new Error(`noema agent put: ${put.stderr}`);
    const api = startCli(['serve', '--port', '0', '--no-work'], env);
    children.push(api);
    const [, url] = await api.waitFor(/serving on (http:\/\/127\.0\.0\.1:\d+)/, 60_000);
    const created = await fetch(`${url}/api/flowcharts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: readFileSync(example('flowcharts/support-triage.json'), 'utf8'),
    });
    const body = (await created.json()) as { flowchart_id?: string };
    if (created.status !== 201 || !body.flowchart_id) throw new Error(`flowchart: ${JSON.stringify(body)}`);
    return {
      ts,
      env,
      api: url!,
      flowchartId: body.flowchart_id,
      setLatency: (ms) => {
        latencyMs = ms;
      },
      workers,
      async scaleTo(n) {
        const started: Promise<WorkerProcess>[] = [];
        for (let i = workers.length; i < n; i++)
          started.push(startWorkerCli(env, ['--concurrency', String(options.concurrency)]));
        // Every worker that started is kept (and stopped on close), even when another did not.
        const settled = await Promise.allSettled(started);
        for (const r of settled) if (r.status === 'fulfilled') workers.push(r.value);
        const failed = settled.find((r) => r.status === 'rejected');
        if (failed) throw failed.reason;
        while (workers.length > n) await stop(workers.pop()!.cli);
      },
      start(args) {
        const cli = startCli(args, env);
        children.push(cli);
        return cli;
      },
      async close() {
        await Promise.all([...workers.map((w) => stop(w.cli)), ...children.map(stop)]);
        await ts.dispose();
        await mcp.close();
        await model.close();
      },
    };
  } catch (err) {
    for (const c of children) c.child.kill('SIGKILL');
    await ts.dispose();
    await mcp.close();
    await model.close();
    throw err;
  }
}
