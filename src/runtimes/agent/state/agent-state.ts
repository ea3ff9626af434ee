/**
 * AgentState (seed 002): execution + reasoning + situated memory, plus what the Emotion and Memory
 * nodes found (seed 000). `updateFromReasoning` folds a validated reasoning reply into the state.
 */
import type { EmotionReading, ReasoningReply } from '../reply-schema.ts';
import type { ExecutionState } from './execution-state.ts';
import { addInsight, type ReasoningContext, recordThinking, updateFacts } from './reasoning-context.ts';
import { compressForInjection, type UserProfile } from './user-profile.ts';

/** What the MemoryNode gathered for this interaction. */
export interface MemoryContext {
  working_memory_summary: string;
  relevant_long_term_memory: Array<{ memory_id: number; text: string; kind: string }>;
}

export interface AgentState {
  execution: ExecutionState;
  reasoning: ReasoningContext;
  user_profile: UserProfile | null;
  emotion: EmotionReading | null;
  memory: MemoryContext | null;
}

/** The seed's `get_situated_context`: `USER CONTEXT:` and the compressed profile, or nothing. */
export function situatedContext(state: Pick<AgentState, 'user_profile'>): string {
  if (!state.user_profile) return '';
  const context = compressForInjection(state.user_profile);
  return context ? `USER CONTEXT:\n${context}\n\n` : '';
}

/**
 * The reasoning-context part of the seed's `update_from_reasoning`: thinking, goal, strategy,
 * insights and facts. (Tool calls become contracts and the response goes to the transcript; the
 * ReasoningNode does that.)
 */
export function updateReasoningFromReply(
  rc: ReasoningContext,
  reply: ReasoningReply,
  timestamp?: string,
): ReasoningContext {
  let next = rc;
  if (reply.thinking) next = recordThinking(next, reply.thinking, reply.tool_calls ?? [], timestamp);
  const u = reply.context_updates;
  if (u) {
    if (typeof u.goal === 'string' && u.goal) next = { ...next, goal: u.goal };
    if (typeof u.strategy === 'string' && u.strategy) next = { ...next, strategy: u.strategy };
    for (const insight of u.insights ?? []) next = addInsight(next, insight);
    for (const [k, v] of Object.entries(u.facts ?? {})) next = updateFacts(next, k, v);
  }
  return next;
}
