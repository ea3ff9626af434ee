/**
 * An agent's own reasoning memory (`reasoning_memory: { workspace, tools }`): chosen `branchmind_*`
 * tools offered to the model, so agents (and MCP clients) share one branchable working memory.
 * The runtime sees them through a port the surface layer provides (the MCP memory catalog); the
 * workspace is the definition's, filled in by the runtime — the model never chooses it.
 */
import type { ActionOutcome } from '../../engine/index.ts';
import type { PromptTool } from './prompt.ts';

export interface ReasoningMemoryTool {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
}

export interface ReasoningMemoryPort {
  tools(): ReasoningMemoryTool[];
  /** Calls a tool with validated arguments (workspace included); failures are outcomes. */
  call(name: string, args: Record<string, unknown>): Promise<ActionOutcome>;
}

export interface ReasoningMemoryConfig {
  workspace: string;
  tools: string[];
}

/** The chosen tools as the model sees them: the `workspace` argument removed. */
export function memoryPromptTools(
  port: ReasoningMemoryPort | undefined,
  config: ReasoningMemoryConfig | undefined,
): Array<PromptTool & { input_schema: Record<string, unknown> }> {
  if (!port || !config) return [];
  const byName = new Map(port.tools().map((t) => [t.name, t]));
  return config.tools.flatMap((name) => {
    const t = byName.get(name);
    if (!t) return [];
    const props = { ...((t.input_schema.properties ?? {}) as Record<string, unknown>) };
    delete props.workspace;
    const required = ((t.input_schema.required ?? []) as string[]).filter((r) => r !== 'workspace');
    return [
      { name, description: t.description, input_schema: { ...t.input_schema, properties: props, required } },
    ];
  });
}
