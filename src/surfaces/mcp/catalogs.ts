/**
 * The MCP tool catalogs Noema serves: `memory` (the default: reasoning memory and tasks), and the
 * runtime catalogs (`world`, `flow`) as they are built. Each is served over stdio
 * (`noema mcp --catalog <name>`) and streamable HTTP (`/mcp/<name>`; `/mcp` is `memory`).
 * A runtime adds its catalog with one entry here.
 */
import { NoemaError } from '../../core/errors.ts';
import { ToolDispatcher } from './dispatch.ts';
import type { McpToolDef } from './tool.ts';
import { flowTools } from './tools/flow/index.ts';
import { memoryTools } from './tools/index.ts';
import { worldCatalogTools } from './tools/world/index.ts';

export interface McpCatalog {
  /** Told to clients in the MCP `initialize` answer. */
  instructions: string;
  tools(): McpToolDef[];
}

export const DEFAULT_CATALOG = 'memory';

const catalogs: Record<string, McpCatalog> = {
  memory: {
    instructions:
      'Noema reasoning memory. Call branchmind_init with your workspace id once, then use branchmind_* and tasks_* tools. Every stateful tool needs "workspace".',
    tools: memoryTools,
  },
  world: {
    instructions:
      'Noema worlds (seed 004): put schemas, sources, workflows, profiles, environments and entities; assemble_scenario; create_world; run_turn; then read get_world, get_attempt, list_source_invocations to see why every change happened.',
    tools: worldCatalogTools,
  },
  flow: {
    instructions:
      'Noema flowcharts (seed 003): read memories, plans, milestones and node artifacts with llmctl_get_*; llmctl_memory_add/retrieve are the memory tools flowchart memory nodes are bound to (llmctl-mcp).',
    tools: flowTools,
  },
};

export function catalogNames(): string[] {
  return Object.keys(catalogs);
}

/** The catalog of that name; `UNKNOWN_CATALOG` (with the known names) otherwise. */
export function mcpCatalog(name: string): McpCatalog {
  const catalog = Object.hasOwn(catalogs, name) ? catalogs[name] : undefined;
  if (!catalog)
    throw new NoemaError('UNKNOWN_CATALOG', `unknown MCP catalog "${name}"`, {
      details: { catalog: name, known: catalogNames() },
      hint: `use one of: ${catalogNames().join(', ')}`,
    });
  return catalog;
}

const dispatchers = new Map<string, ToolDispatcher>();

/** The dispatcher over one catalog's tools (built once per catalog: schemas compile once). */
export function catalogDispatcher(name: string = DEFAULT_CATALOG): ToolDispatcher {
  let d = dispatchers.get(name);
  if (!d) {
    d = new ToolDispatcher(mcpCatalog(name).tools());
    dispatchers.set(name, d);
  }
  return d;
}
