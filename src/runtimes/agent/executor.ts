/**
 * The agent runtime's ActionExecutor: source-backed contracts (LLM calls, MCP tool calls) go to
 * the engine's sources executor; `memory_save` stores a long-term memory and `profile_save` writes a
 * user profile. Being actions, both are journaled: a replayed node never stores twice. The sources
 * executor's joined transitions and crash recovery pass through: a model or tool call commits its
 * contract's RUNNING move with its invocation row, and one found RUNNING after a crash takes the
 * invocation's durable outcome instead of being called again — for a model call, also a reply its
 * persisted chunks hold whole (the process died after receiving it, before recording it).
 */
import { NoemaError } from '../../core/errors.ts';
import type { ActionExecutor, ActionOutcome, ExecutionContract, Json } from '../../engine/index.ts';
import { addMemory, type MemoryScopeKind } from '../../memory/index.ts';
import { keepReplyOfContract } from '../../sources/index.ts';
import type { Store } from '../../store/store.ts';
import { saveProfile } from './profiles/profile-store.ts';
import type { ReasoningMemoryPort } from './reasoning-memory.ts';
import type { UserProfile } from './state/user-profile.ts';

export function agentExecutor(
  store: Store,
  sources: ActionExecutor,
  memory?: ReasoningMemoryPort,
): ActionExecutor {
  const ownAction = (contract: ExecutionContract): boolean =>
    contract.action_type === 'memory_save' ||
    contract.action_type === 'profile_save' ||
    (contract.action_type === 'tool_call' && reasoningMemoryOf(contract) !== undefined);
  return {
    ...(sources.joinsTransitions ? { joinsTransitions: true } : {}),
    async execute(contract, ctx) {
      if (!ownAction(contract)) return sources.execute(contract, ctx);
      // Joined transitions hand the RUNNING move to the executor: commit it before the write, as
      // the engine would, so a crash in between leaves the contract RUNNING (never stored twice).
      if (ctx.transitions) await ctx.transitions.running(async () => undefined);
      return ownExecute(store, memory, contract);
    },
    async recover(contract, ctx) {
      if (ownAction(contract) || !sources.recover) return null;
      const known = await sources.recover(contract, ctx);
      if (known || contract.action_type !== 'llm_generation') return known;
      // A model call whose process died after receiving the whole reply, before recording it: the
      // reply its persisted chunks hold is kept (and its invocation finished), not asked for again.
      const kept = await keepReplyOfContract(store, {
        contract_id: contract.contract_id,
        run_id: ctx.run_id,
      });
      if (!kept) return null;
      if (kept.ok) return { ok: true, result: (kept.output ?? null) as Json };
      const e = kept.error;
      return {
        ok: false,
        error_message: `${kept.failure_class}: ${e.message}`,
        error: { code: e.code, message: e.message, retryable: e.retryable, details: e.details },
      };
    },
  };
}

/** The agent's own actions: reasoning-memory tools, long-term memories, user profiles. */
async function ownExecute(
  store: Store,
  memory: ReasoningMemoryPort | undefined,
  contract: ExecutionContract,
): Promise<ActionOutcome> {
  const rm = reasoningMemoryOf(contract);
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
      if (err instanceof NoemaError)
        return {
          ok: false,
          error_message: `${err.code}: ${err.message}`,
          error: { code: err.code, message: err.message, retryable: err.retryable, details: err.details },
        };
      throw err;
    }
  }
  throw new NoemaError('INVALID_INPUT', `contract ${contract.contract_id}: not an agent action`);
}

function reasoningMemoryOf(contract: ExecutionContract): { workspace: string } | undefined {
  return (contract.payload as { reasoning_memory?: { workspace: string } } | null)?.reasoning_memory;
}
