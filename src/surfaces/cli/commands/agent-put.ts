/** `noema agent put`: stores an agent definition (file references resolved, MCP tools pinned). */
import { loadConfig } from '../../../app/config.ts';
import { openNoemaStore } from '../../../app/open.ts';
import { resolveAgentFile } from '../agent-files.ts';
import { type Command, DB_FLAG, EXIT_OK } from '../command.ts';
import { requirePath } from '../files.ts';

export const agentPutCommand: Command = {
  path: ['agent', 'put'],
  summary: 'Store an agent definition (docs/agents.md); prints its hash and pinned tools',
  args: [{ name: 'agent.json', required: true, description: 'the agent definition file' }],
  flags: { db: DB_FLAG },
  example: 'noema agent put examples/agents/calculator/agent.json',
  async run({ flags, positionals, io }) {
    const { createAgentRuntime } = await import('../../../runtimes/agent/index.ts');
    const file = requirePath(positionals[0]!);
    const store = await openNoemaStore(loadConfig({ db: flags.db as string | undefined }));
    try {
      const { agentReasoningMemory } = await import('../../mcp/agent-memory.ts');
      const runtime = await createAgentRuntime(store, {
        resumeBackground: false,
        reasoningMemory: agentReasoningMemory(store),
      });
      try {
        const { hash, definition } = await runtime.putAgent(await resolveAgentFile(store, file));
        io.out(
          JSON.stringify(
            { hash, label: definition.label, tools: definition.tools.map((t) => t.name) },
            null,
            2,
          ),
        );
      } finally {
        await runtime.close();
      }
    } finally {
      await store.close();
    }
    return EXIT_OK;
  },
};
