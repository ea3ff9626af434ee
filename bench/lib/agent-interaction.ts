/**
 * The agent interaction the agent and observability benches run: one message that makes one MCP
 * tool call (reasoning LLM call → tool `add` → reasoning LLM call), against the zero-latency
 * scripted model and the MCP fixture server, each in a process of its own.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentRuntime } from '../../src/runtimes/agent/index.ts';
import { putMcpServer, putResponseSource } from '../../src/sources/index.ts';
import type { Store } from '../../src/store/store.ts';
import { BENCH_AGENT_SCRIPT, BENCH_AGENT_SETTINGS } from '../../src/testing/bench-agent.ts';
import { startCli } from '../../src/testing/cli.ts';

/** The scripted model and the MCP fixture in processes of their own; `env` points the agent at them. */
export async function startAgentServices(): Promise<{ env: Record<string, string>; close(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'noema-bench-agent-'));
  const scriptFile = join(dir, 'script.json');
  writeFileSync(scriptFile, JSON.stringify(BENCH_AGENT_SCRIPT));
  const model = startCli(['dev', 'scripted-model', '--script', scriptFile, '--port', '0']);
  const mcp = startCli(['dev', 'mcp-fixture', '--port', '0']);
  const close = async () => {
    model.child.kill('SIGTERM');
    mcp.child.kill('SIGTERM');
    await model.exited;
    await mcp.exited;
  };
  try {
    const [, modelUrl] = await model.waitFor(/NOEMA_LLM_BASE_URL=(\S+)/);
    const [, mcpUrl] = await mcp.waitFor(/NOEMA_MCP_FIXTURE_URL=(\S+)/);
    return {
      env: { NOEMA_LLM_BASE_URL: modelUrl!, NOEMA_LLM_MODEL: 'scripted', BENCH_MCP_URL: mcpUrl! },
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
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
