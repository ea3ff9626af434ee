/**
 * The demo's in-process services: three scripted models (park world, agent, flowchart) behind one
 * router, the toy park services and the MCP fixture server, all on 127.0.0.1 with ephemeral ports;
 * and the environment each runtime reads — one per part while the demo runs, and one for the
 * runtimes it serves afterwards. With `--real-model` the world and the agent use the operator's
 * NOEMA_LLM_* endpoint instead; nothing else is ever called.
 */
import { fileURLToPath } from 'node:url';
import { NoemaError } from '../../../core/errors.ts';
import { startFixtureHttpServer } from '../../../dev/mcp-fixture-server.ts';
import { loadScript, startScriptedModel } from '../../../dev/scripted-model/index.ts';
import { startToyServices } from '../../../dev/toys/index.ts';
import { startModelRouter } from './model-router.ts';

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
  /**
   * What the served runtimes (world turns, agent messages and flowchart runs started from the
   * browser) read as the operator's environment: the toys, the MCP fixture and, unless the model is
   * the operator's, the router in front of the three scripts.
   */
  servedEnv: Env;
  /** Which model answered the world and the agent: `scripted` or the operator's model name. */
  model: string;
  close(): Promise<void>;
}

/** The model name the flowchart's `@flow` alias resolves to, so the router can tell its calls apart. */
export const DEMO_FLOW_MODEL = 'scripted-flow';

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
    const scripted = async (path: string, model = 'scripted') => {
      const server = await startScriptedModel({ script: loadScript(path), record: false });
      closers.push(() => server.close());
      return { NOEMA_LLM_BASE_URL: server.url, NOEMA_LLM_MODEL: model };
    };
    const toys = await startToyServices({ vendingStock: 1 });
    closers.push(() => toys.close());
    const mcp = await startFixtureHttpServer();
    closers.push(() => mcp.close());
    const flowEnv = await scripted(DEMO_FILES.flowchartScript, DEMO_FLOW_MODEL);
    const tools = { ...toys.env, NOEMA_MCP_FIXTURE_URL: mcp.url };
    let worldLlm: Env;
    let agentLlm: Env;
    let servedEnv: Env;
    if (options.realModel) {
      worldLlm = agentLlm = options.realModel;
      // One endpoint for everything served: flowchart runs started later use the operator's model too.
      servedEnv = { ...tools, ...options.realModel };
    } else {
      worldLlm = await scripted(DEMO_FILES.parkScript);
      agentLlm = await scripted(DEMO_FILES.agentScript);
      const router = await startModelRouter({
        world: worldLlm.NOEMA_LLM_BASE_URL!,
        agent: agentLlm.NOEMA_LLM_BASE_URL!,
        flow: flowEnv.NOEMA_LLM_BASE_URL!,
        flowModel: DEMO_FLOW_MODEL,
      });
      closers.push(() => router.close());
      servedEnv = {
        ...tools,
        NOEMA_LLM_BASE_URL: router.url,
        NOEMA_LLM_MODEL: 'scripted',
        NOEMA_LLM_MODEL_FLOW: DEMO_FLOW_MODEL,
      };
    }
    return {
      worldEnv: { ...toys.env, ...worldLlm },
      agentEnv: { NOEMA_MCP_FIXTURE_URL: mcp.url, ...agentLlm },
      flowEnv,
      servedEnv,
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
