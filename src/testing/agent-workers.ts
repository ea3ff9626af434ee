/**
 * Test helpers for agent messages executed by `noema worker` processes on PostgreSQL: the calculator
 * agent put on a fresh store, its scripted model (each reply held `delayMs`, every request seen by
 * `onModelRequest` first) and the MCP fixture in the test's process, the environment a `serve` or a
 * worker needs, and calls to the HTTP API with the token.
 */
import { fileURLToPath } from 'node:url';
import { startFixtureHttpServer } from '../dev/mcp-fixture-server.ts';
import {
  loadScript,
  type RecordedRequest,
  type ScriptedModelServer,
  startScriptedModel,
} from '../dev/scripted-model/index.ts';
import { type RunningCli, runCli, startCli } from './cli.ts';
import { openTestStore, type TestStore } from './stores.ts';
import { testTempDir } from './temp-dir.ts';

export const AGENT_TOKEN = 'agent-workers-test-token-0123456789';
const example = (path: string) => fileURLToPath(new URL(`../../examples/${path}`, import.meta.url));

export interface AgentSystem {
  ts: TestStore;
  model: ScriptedModelServer;
  mcp: Awaited<ReturnType<typeof startFixtureHttpServer>>;
  env: Record<string, string>;
  close(): Promise<void>;
}

export async function startAgentSystem(options: {
  delayMs: number;
  leaseMs: number;
  onModelRequest?: (request: RecordedRequest) => void | Promise<void>;
}): Promise<AgentSystem> {
  const ts = await openTestStore('postgres');
  const script = loadScript(example('agents/calculator/model-script.json'));
  const model = await startScriptedModel({
    script: {
      ...script,
      rules: script.rules.map((r) => ({ ...r, reply: { delay_ms: options.delayMs, ...r.reply } })),
    },
    ...(options.onModelRequest ? { onRequest: options.onModelRequest } : {}),
  });
  const mcp = await startFixtureHttpServer();
  const env = {
    NOEMA_DB: ts.url,
    NOEMA_DATA_DIR: testTempDir('noema-agent-workers-'),
    NOEMA_TOKEN: AGENT_TOKEN,
    NOEMA_LLM_BASE_URL: model.url,
    NOEMA_LLM_MODEL: 'scripted',
    NOEMA_MCP_FIXTURE_URL: mcp.url,
    NOEMA_RECOVERY_INTERVAL_MS: '100',
    NOEMA_RUN_LEASE_MS: String(options.leaseMs),
  };
  const close = async () => {
    await model.close();
    await mcp.close();
    await ts.dispose();
  };
  const put = await runCli(['agent', 'put', example('agents/calculator/agent.json')], env, 60_000);
  if (put.code !== 0) {
    await close();
    throw new Error(`noema agent put: ${put.stderr}`);
  }
  return { ts, model, mcp, env, close };
}

/** `serve --no-work` on `port` (0: any); resolves with its base URL once it serves. */
export async function startApi(
  env: Record<string, string>,
  port: number,
): Promise<{ cli: RunningCli; url: string }> {
  const cli = startCli(['serve', '--port', String(port), '--no-work'], env);
  const [, url] = await cli.waitFor(/serving on (http:\/\/127\.0\.0\.1:\d+)/, 60_000);
  return { cli, url: url! };
}

export const authorization = { authorization: `Bearer ${AGENT_TOKEN}` };

export async function createSession(url: string, user: string): Promise<string> {
  const res = await fetch(`${url}/sessions`, {
    method: 'POST',
    headers: { ...authorization, 'content-type': 'application/json' },
    body: JSON.stringify({ agent_label: 'calculator', user_id: user }),
  });
  const body = (await res.json()) as { session_id?: string };
  if (res.status !== 201 || !body.session_id) throw new Error(`POST /sessions: ${JSON.stringify(body)}`);
  return body.session_id;
}

/** Posts a message; resolves with the stream's text (or the error that cut it). */
export function postMessage(url: string, session: string, content: string): Promise<string> {
  return fetch(`${url}/sessions/${session}/messages`, {
    method: 'POST',
    headers: { ...authorization, 'content-type': 'application/json' },
    body: JSON.stringify({ content }),
  }).then(
    (res) => res.text().catch((err: unknown) => `cut: ${String(err)}`),
    (err: unknown) => `cut: ${String(err)}`,
  );
}

/** The stored events of a session (`seq event`), in order. */
export async function storedEvents(ts: TestStore, session: string): Promise<string[]> {
  const rows = await ts.store.all<{ seq: number; event: string }>(
    'SELECT seq, event FROM agent_session_events WHERE session_id = ? ORDER BY seq',
    [session],
  );
  return rows.map((r) => `${r.seq} ${r.event}`);
}
