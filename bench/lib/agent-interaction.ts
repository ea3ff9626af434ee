/**
 * The agent interaction the agent and observability benches run: one message that makes one MCP
 * tool call (reasoning LLM call → tool `add` → reasoning LLM call), against the zero-latency
 * scripted model and the MCP fixture server, each in a process of its own.
 */
import type { AgentRuntime } from '../../src/runtimes/agent/index.ts';
import { putMcpServer, putResponseSource } from '../../src/sources/index.ts';
import type { Store } from '../../src/store/store.ts';
import { BENCH_AGENT_SCRIPT, BENCH_AGENT_SETTINGS } from '../../src/testing/bench-agent.ts';
import { scriptedModel, startDevServices } from './dev-services.ts';

/** The scripted model and the MCP fixture in processes of their own; `env` points the agent at them. */
export async function startAgentServices(): Promise<{ env: Record<string, string>; close(): Promise<void> }> {
  const { urls, close } = await startDevServices([
    scriptedModel(BENCH_AGENT_SCRIPT),
    { args: ['dev', 'mcp-fixture', '--port', '0'], ready: /NOEMA_MCP_FIXTURE_URL=(\S+)/ },
  ]);
  const [modelUrl, mcpUrl] = urls;
  return {
    env: { NOEMA_LLM_BASE_URL: modelUrl!, NOEMA_LLM_MODEL: 'scripted', BENCH_MCP_URL: mcpUrl! },
    close,
  };
}

/** The bench's agent (fast mode, the `add` tool, no emotion, memory or synthesis), stored. */
export async function putBenchAgent(store: Store, runtime: AgentRuntime) {
  const llm = await putResponseSource(store, {
    version: 1,
    interface: { name: 'llm_chat_completions', model: '@chat', schema_delivery: 'response_format' },
  });
  const server = await putMcpServer(store, {
    version: 1,
    transport: { type: 'streamable_http', url_env: 'BENCH_MCP_URL' },
  });
  const agent = await runtime.putAgent({
    version: 1,
    label: 'bench',
    llm_source_ref: { hash: llm.hash },
    tools: [{ server_ref: { hash: server.hash }, tool_names: ['add'] }],
    max_iterations: 5,
    ...BENCH_AGENT_SETTINGS,
  });
  return { llm, server, ...agent };
}

/**
 * The bench's conversation: each call sends one message (the tool call), in a new session every 10
 * messages as a user's conversations go, and checks the reply.
 */
export function benchConversation(runtime: AgentRuntime, hash: string) {
  let session_id = '';
  let sent = 0;
  return async () => {
    if (sent++ % 10 === 0)
      session_id = (await runtime.createSession({ agent_ref: { hash }, user_id: 'bench' })).session_id;
    const turn = await runtime.sendMessage(session_id, { content: 'add 2 and 3' });
    if (turn.response !== 'The sum is 5.') throw new Error(`unexpected reply ${turn.response}`);
    return turn;
  };
}
