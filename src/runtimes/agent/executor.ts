/**
 * The agent runtime's ActionExecutor: source-backed contracts (LLM calls, MCP tool calls) go to
 * the engine's sources executor; `memory_save` stores a long-term memory and `profile_save` writes a
 * user profile. Being actions, both are journaled: a replayed node never stores twice.
 */
import { NoemaError } from '../../core/errors.ts';
import type { ActionExecutor, Json } from '../../engine/index.ts';
import { addMemory, type MemoryScopeKind } from '../../memory/index.ts';
import type { Store } from '../../store/store.ts';
import { saveProfile } from './profiles/profile-store.ts';
import type { ReasoningMemoryPort } from './reasoning-memory.ts';
import type { UserProfile } from './state/user-profile.ts';

export function agentExecutor(
  store: Store,
  sources: ActionExecutor,
  memory?: ReasoningMemoryPort,
): ActionExecutor {
  return {
    async execute(contract, ctx) {
      const rm = (contract.payload as { reasoning_memory?: { workspace: string } } | null)?.reasoning_memory;
      if (contract.action_type === 'tool_call' && rm) {
        const p = contract.payload as { name: string; args: Record<string, unknown> };
        if (!memory)
          return {
            ok: false,
            error_message: 'REASONING_MEMORY_UNAVAILABLE: this process has no reasoning-memory tools',
          };
        return memory.call(p.name, { ...p.args, workspace: rm.workspace });
      }
      if (contract.action_type === 'memory_save') {
        const p = contract.payload as {
          scope_kind: MemoryScopeKind;
          scope_id: string;
          text: string;
          kind: string;
          meta: Record<string, unknown>;
        };
        const { memory, operation } = await addMemory(store, p);
        return {
          ok: true,
          result: { memory_id: memory.memory_id, kind: memory.kind, text: memory.text, operation } as Json,
        };
      }
      if (contract.action_type === 'profile_save') {
        const p = contract.payload as unknown as { profile: UserProfile; expected_revision: number };
        try {
          const saved = await saveProfile(store, p.profile, p.expected_revision);
          return { ok: true, result: { revision: saved.revision } };
        } catch (err) {
          if (err instanceof NoemaError) return { ok: false, error_message: `${err.code}: ${err.message}` };
          throw err;
        }
      }
      return sources.execute(contract, ctx);
    },
  };
}
