/**
 * The reasoning-memory port for agents: the `memory` catalog's `branchmind_*` tools, called in
 * process on the same store (validated like MCP calls), so agents and MCP clients share one
 * branchable working memory. Each workspace is initialized once per process before first use.
 */
import type { ReasoningMemoryPort } from '../../runtimes/agent/index.ts';
import type { Store } from '../../store/store.ts';
import { catalogDispatcher } from './catalogs.ts';

export function agentReasoningMemory(store: Store): ReasoningMemoryPort {
  const dispatcher = catalogDispatcher('memory');
  const ready = new Set<string>();
  return {
    tools: () =>
      dispatcher
        .list()
        .filter((t) => t.name.startsWith('branchmind_'))
        .map((t) => ({ name: t.name, description: t.description, input_schema: t.inputSchema })),
    async call(name, args) {
      const workspace = String(args.workspace);
      if (!ready.has(workspace)) {
        const init = await dispatcher.call('branchmind_init', { workspace }, { store });
        if (init.isError)
          return { ok: false, error_message: `branchmind_init: ${init.content[0]?.text ?? 'failed'}` };
        ready.add(workspace);
      }
      const r = await dispatcher.call(name, args, { store });
      if (r.isError) {
        const e = (r.structuredContent.error ?? {}) as { code?: string; message?: string };
        return { ok: false, error_message: `${e.code ?? 'TOOL_ERROR'}: ${e.message ?? 'failed'}` };
      }
      return { ok: true, result: r.structuredContent as never };
    },
  };
}
