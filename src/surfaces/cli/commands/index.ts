/** Every CLI command, assembled. Subsystems add one line here. */
import type { Command } from '../command.ts';
import { mcpCommand } from './mcp.ts';
import { migrateCommand } from './migrate.ts';
import { serveCommand } from './serve.ts';

export const commands: readonly Command[] = [serveCommand, migrateCommand, mcpCommand];
