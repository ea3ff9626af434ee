/** The `world` catalog's tools (seed 004), assembled. */
import type { McpToolDef } from '../../tool.ts';
import { componentTools } from './components.ts';
import { historyTools } from './history.ts';
import { worldTools } from './worlds.ts';

export function worldCatalogTools(): McpToolDef[] {
  return [...componentTools, ...worldTools, ...historyTools];
}
