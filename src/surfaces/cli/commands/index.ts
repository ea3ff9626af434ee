/**
 * Every CLI command, by the first word of its path. A process loads the declarations under the word
 * it was started with (`noema serve` loads `serve`'s alone, not every command's imports); help, a
 * mistyped or missing command and `help <command>` load them all. Subsystems add one line here.
 */
import type { Command } from '../command.ts';

/** In the order help lists them. */
const BY_WORD = new Map<string, () => Promise<readonly Command[]>>([
  ['serve', async () => [(await import('./serve.ts')).serveCommand]],
  ['worker', async () => [(await import('./worker.ts')).workerCommand]],
  ['workers', async () => [(await import('./workers.ts')).workersCommand]],
  ['demo', async () => [(await import('./demo.ts')).demoCommand]],
  ['mcp', async () => [(await import('./mcp.ts')).mcpCommand]],
  ['migrate', async () => [(await import('./migrate.ts')).migrateCommand]],
  ['source', async () => [(await import('./source-invoke.ts')).sourceInvokeCommand]],
  [
    'dev',
    async () => [
      (await import('./dev-up.ts')).devUpCommand,
      (await import('./dev-cluster.ts')).devClusterCommand,
      (await import('./dev-scripted-model.ts')).devScriptedModelCommand,
      (await import('./dev-toys.ts')).devToysCommand,
      (await import('./dev-mcp-fixture.ts')).devMcpFixtureCommand,
      (await import('./dev-provider.ts')).devProviderCommand,
    ],
  ],
  ['world', async () => (await import('./world-commands.ts')).worldCommands],
  [
    'agent',
    async () => [
      (await import('./agent-put.ts')).agentPutCommand,
      (await import('./agent-chat.ts')).agentChatCommand,
    ],
  ],
  [
    'flow',
    async () => [
      (await import('./flow-import.ts')).flowImportCommand,
      (await import('./flow-run.ts')).flowRunCommand,
    ],
  ],
  [
    'llm',
    async () => [
      (await import('./llm-check.ts')).llmCheckCommand,
      (await import('./llm-schema.ts')).llmSchemaCommand,
    ],
  ],
]);

/** Every command, in the order help lists them. */
export async function allCommands(): Promise<readonly Command[]> {
  const groups = await Promise.all([...BY_WORD.values()].map((load) => load()));
  return groups.flat();
}

/** The commands a process started with `argv` needs: those under its first word, or all. */
export async function commandsFor(argv: readonly string[]): Promise<readonly Command[]> {
  const load = BY_WORD.get(argv[0] ?? '');
  return load ? load() : allCommands();
}
