/** Every CLI command, assembled. Subsystems add one line here. */
import type { Command } from '../command.ts';
import { agentChatCommand } from './agent-chat.ts';
import { agentPutCommand } from './agent-put.ts';
import { demoCommand } from './demo.ts';
import { devClusterCommand } from './dev-cluster.ts';
import { devMcpFixtureCommand } from './dev-mcp-fixture.ts';
import { devProviderCommand } from './dev-provider.ts';
import { devScriptedModelCommand } from './dev-scripted-model.ts';
import { devToysCommand } from './dev-toys.ts';
import { devUpCommand } from './dev-up.ts';
import { flowImportCommand } from './flow-import.ts';
import { flowRunCommand } from './flow-run.ts';
import { llmCheckCommand } from './llm-check.ts';
import { llmSchemaCommand } from './llm-schema.ts';
import { mcpCommand } from './mcp.ts';
import { migrateCommand } from './migrate.ts';
import { serveCommand } from './serve.ts';
import { sourceInvokeCommand } from './source-invoke.ts';
import { workerCommand } from './worker.ts';
import { workersCommand } from './workers.ts';
import { worldCommands } from './world-commands.ts';

export const commands: readonly Command[] = [
  serveCommand,
  workerCommand,
  workersCommand,
  demoCommand,
  mcpCommand,
  migrateCommand,
  sourceInvokeCommand,
  devUpCommand,
  devClusterCommand,
  devScriptedModelCommand,
  devToysCommand,
  ...worldCommands,
  agentPutCommand,
  agentChatCommand,
  devMcpFixtureCommand,
  devProviderCommand,
  flowImportCommand,
  flowRunCommand,
  llmCheckCommand,
  llmSchemaCommand,
];
