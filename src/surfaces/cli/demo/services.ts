/**
 * The demo's in-process services: three scripted models (park world, agent, flowchart), the toy
 * park services and the MCP fixture server, all on 127.0.0.1 with ephemeral ports; and the
 * environment each runtime reads. With `--real-model` the world and the agent use the operator's
 * NOEMA_LLM_* endpoint instead; nothing else is ever called.
 */
import { fileURLToPath } from 'node:url';
import { NoemaError } from '../../../core/errors.ts';
import { startFixtureHttpServer } from '../../../testing/mcp-fixture-server.ts';
import { loadScript, startScriptedModel } from '../../../testing/scripted-model/index.ts';
import { startToyServices } from '../../../testing/toys/index.ts';

const example = (path: string) => fileURLToPath(new URL(`../../../../examples/${path}`, import.meta.url));

export const DEMO_FILES = {
  parkBundle: example('park'),
  parkScript: example('park/model-script.json'),
  alice: example('park/entities/alice.json'),
  agent: example('agents/calculator/agent.json'),
  agentScript: example('agents/calculator/model-script.json'),
  flowchart: example('flowcharts/support-triage.json'),
  flowchartScript: example('flowcharts/support-triage.script.json'),
};

export type Env = Record<string, string>;

export interface DemoServices {
  /** Environments for each runtime (LLM endpoint, toy and MCP URLs). */
  worldEnv: Env;
  agentEnv: Env;
  flowEnv: Env;
  /** Which model answered the world and the agent: `scripted` or the operator's model name. */
  model: string;
  close(): Promise<void>;
}

const LLM_VARS = ['NOEMA_LLM_BASE_URL', 'NOEMA_LLM_API_KEY', 'NOEMA_LLM_MODEL'] as const;

/**
 * The operator's model for `--real-model`: NOEMA_LLM_BASE_URL and NOEMA_LLM_MODEL are required
 * (the key is optional for local servers). Checked before anything starts.
 */
export function realModelEnv(env: NodeJS.ProcessEnv): Env {
  const missing = ['NOEMA_LLM_BASE_URL', 'NOEMA_LLM_MODEL'].filter((k) => !env[k]);
  if (missing.length > 0)
    throw new NoemaError('CONFIG_INVALID', `--real-model needs ${missing.join(' and ')} set`, {
      details: { missing },
      hint: 'export NOEMA_LLM_BASE_URL=http://127.0.0.1:11434/v1 NOEMA_LLM_MODEL=<model> (and NOEMA_LLM_API_KEY if it needs one)',
    });
  const out: Env = {};
  for (const k of LLM_VARS) if (env[k]) out[k] = env[k];
  return out;
}

export async function startDemoServices(options: { realModel: Env | null }): Promise<DemoServices> {
  const closers: Array<() => Promise<void>> = [];
  try {
    const scripted = async (path: string) => {
      const server = await startScriptedModel({ script: loadScript(path), record: false });
      closers.push(() => server.close());
      return { NOEMA_LLM_BASE_URL: server.url, NOEMA_LLM_MODEL: 'scripted' };
    };
    const toys = await startToyServices({ vendingStock: 1 });
    closers.push(() => toys.close());
    const mcp = await startFixtureHttpServer();
    closers.push(() => mcp.close());
    const flowEnv = await scripted(DEMO_FILES.flowchartScript);
    const worldLlm = options.realModel ?? (await scripted(DEMO_FILES.parkScript));
    const agentLlm = options.realModel ?? (await scripted(DEMO_FILES.agentScript));
    return {
      worldEnv: { ...toys.env, ...worldLlm },
      agentEnv: { NOEMA_MCP_FIXTURE_URL: mcp.url, ...agentLlm },
      flowEnv,
      model: options.realModel?.NOEMA_LLM_MODEL ?? 'scripted',
      async close() {
        for (const close of closers.reverse()) await close();
      },
    };
  } catch (err) {
    for (const close of closers.reverse()) await close().catch(() => {});
    throw err;
  }
}
