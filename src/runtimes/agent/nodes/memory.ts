/**
 * MemoryNode (seed 000): the working-memory summary (the last turns of the session's dialogue) and
 * the relevant long-term memories of the user (full-text retrieval), for the reasoning prompt.
 */
import type { Json, NodeType } from '../../../engine/index.ts';
import { retrieveMemories } from '../../../memory/index.ts';
import { getAgent } from '../definition.ts';
import type { ChatMessage } from '../state/execution-state.ts';
import { type AgentNodeDeps, emit, type MemoryContext, type SessionRef } from './deps.ts';

const TURN_CHARS = 600;

export function workingMemorySummary(history: readonly ChatMessage[], turns: number): string {
  if (turns <= 0) return '';
  // A turn is a user message and the answer to it.
  return history
    .slice(-turns * 2)
    .map(
      (m) => `${m.role}: ${m.content.length > TURN_CHARS ? `${m.content.slice(0, TURN_CHARS)}…` : m.content}`,
    )
    .join('\n');
}

/**
 * Memories matching the query (full-text relevance and recency) first; when fewer match than the
 * limit, the user's newest memories fill the rest — a short message ("hi") shares no words with
 * what the agent knows about the user, yet that knowledge is still relevant to answering them.
 */
async function relevantMemories(deps: AgentNodeDeps, user_id: string, query: string, limit: number) {
  const scope = { scope_kind: 'user' as const, scope_id: user_id, limit };
  const matched = (await retrieveMemories(deps.store, { ...scope, query_text: query })).items;
  if (matched.length >= limit) return matched;
  const seen = new Set(matched.map((m) => m.memory_id));
  const recent = (await retrieveMemories(deps.store, scope)).items.filter((m) => !seen.has(m.memory_id));
  return [...matched, ...recent].slice(0, limit);
}

export function memoryNode(deps: AgentNodeDeps): NodeType<null> {
  return {
    type: 'memory',
    description: 'Working-memory summary and relevant long-term memories of the user.',
    async execute(ctx) {
      const session = ctx.state.session as unknown as SessionRef;
      const def = await getAgent(deps.store, session.agent_hash);
      const history = (ctx.state.history ?? []) as unknown as ChatMessage[];
      const query = (ctx.state.execution as { query: string }).query;
      const items =
        def.memory.long_term_limit > 0
          ? await relevantMemories(deps, session.user_id, query, def.memory.long_term_limit)
          : [];
      const memory: MemoryContext = {
        working_memory_summary: workingMemorySummary(history, def.memory.working_memory_turns),
        relevant_long_term_memory: items.map((m) => ({ memory_id: m.memory_id, text: m.text, kind: m.kind })),
      };
      emit(ctx, 'memory', {
        working_memory_turns: Math.min(def.memory.working_memory_turns, Math.ceil(history.length / 2)),
        long_term: memory.relevant_long_term_memory,
      });
      // Its step commits with the run's next transaction (the next call's record): it only read, so a
      // crash before then reads again, and no agent node writes outside the engine before its record.
      return { kind: 'ok', writes: { memory: memory as unknown as Json }, commitsWithNext: true };
    },
  };
}
