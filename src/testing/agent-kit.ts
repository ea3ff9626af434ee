/**
 * A complete agent setup for tests, the benchmark and docs: the scripted model (with the
 * calculator script from examples/agents), the MCP fixture server over streamable HTTP, an LLM
 * source, and a calculator agent whose `add` and `fail` tools are discovered and pinned at put time.
 */
import { join } from 'node:path';
import { startFixtureHttpServer } from '../dev/mcp-fixture-server.ts';
import {
  loadScript,
  type ModelScript,
  type RecordedRequest,
  type ScriptedModelServer,
  startScriptedModel,
} from '../dev/scripted-model/index.ts';
import { type AgentRuntime, createAgentRuntime, type ReasoningMemoryPort } from '../runtimes/agent/index.ts';
import { putMcpServer, putResponseSource } from '../sources/index.ts';
import type { Store } from '../store/store.ts';

export const CALCULATOR_SCRIPT_PATH = join(
  import.meta.dirname,
  '../../examples/agents/calculator/model-script.json',
);

export interface AgentKit {
  runtime: AgentRuntime;
  model: ScriptedModelServer;
  /** The MCP fixture server the agent's tools call (counts the tool calls that reach it). */
  mcp: { toolCalls(name?: string): number };
  env: Record<string, string>;
  agent_hash: string;
  llm_source_hash: string;
  server_hash: string;
  close(): Promise<void>;
}

export interface AgentKitOptions {
  script?: ModelScript;
  /** Overrides merged into the calculator definition. */
  definition?: Record<string, unknown>;
  owner?: string;
  background?: 'run' | 'defer';
  reasoningMemory?: ReasoningMemoryPort;
  /** Called as each model request arrives, before the scripted reply (see `startScriptedModel`). */
  onRequest?: (request: RecordedRequest) => void | Promise<void>;
  /** More environment for the runtime (e.g. `NOEMA_LLM_API_KEY`). */
  env?: Record<string, string>;
}

export function calculatorDefinition(llm: string, server: string): Record<string, unknown> {
  return {
    version: 1,
    label: 'calculator',
    llm_source_ref: { hash: llm },
    tools: [{ server_ref: { hash: server }, tool_names: ['add', 'fail'] }],
    mode: 'adapt',
    max_iterations: 5,
    emotion: { enabled: true },
    memory: { long_term_limit: 5, working_memory_turns: 3 },
    synthesis: { enabled: true, threshold: 3 },
  };
}

export async function startAgentKit(store: Store, options: AgentKitOptions = {}): Promise<AgentKit> {
  const model = await startScriptedModel({
    script: options.script ?? loadScript(CALCULATOR_SCRIPT_PATH),
    ...(options.onRequest ? { onRequest: options.onRequest } : {}),
  });
  const mcp = await startFixtureHttpServer();
  const env: Record<string, string> = {
    NOEMA_LLM_BASE_URL: model.url,
    NOEMA_LLM_MODEL: 'scripted-1',
    AGENT_KIT_MCP_URL: mcp.url,
    ...options.env,
  };
  const runtime = await createAgentRuntime(store, {
    env,
    ...(options.owner ? { owner: options.owner } : {}),
    ...(options.background ? { background: options.background } : {}),
    ...(options.reasoningMemory ? { reasoningMemory: options.reasoningMemory } : {}),
  });
  try {
    const llm = await putResponseSource(store, {
      version: 1,
      label: 'agent_llm',
      interface: { name: 'llm_chat_completions', model: '@chat', schema_delivery: 'response_format' },
    });
    const server = await putMcpServer(store, {
      version: 1,
      label: 'fixture',
      transport: { type: 'streamable_http', url_env: 'AGENT_KIT_MCP_URL' },
    });
    const { hash } = await runtime.putAgent({
      ...calculatorDefinition(llm.hash, server.hash),
      ...options.definition,
    });
    return {
      runtime,
      model,
      mcp,
      env,
      agent_hash: hash,
      llm_source_hash: llm.hash,
      server_hash: server.hash,
      async close() {
        await runtime.close();
        await model.close();
        await mcp.close();
      },
    };
  } catch (err) {
    await runtime.close();
    await model.close();
    await mcp.close();
    throw err;
  }
}
