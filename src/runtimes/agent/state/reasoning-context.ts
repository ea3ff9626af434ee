/**
 * ReasoningContext (seed 002): structured cognition with every bound — facts ≤ 20, insights ≤ 10
 * (deduplicated), thoughts ≤ 5 — and `compressForContext` within its budget. Pure functions over JSON.
 */
import { addUnique, cut, type Entry, fmt, keepLast, setEntry } from './bounded.ts';

export const MAX_FACTS = 20;
export const MAX_INSIGHTS = 10;
export const MAX_THOUGHTS = 5;

export interface Thought {
  thinking: string;
  tool_calls: Array<{ name: string; args: Record<string, unknown> }>;
  timestamp: string;
}

export interface ReasoningContext {
  goal: string;
  /** Structured facts, oldest first (the seed's ordered dict). */
  facts: Entry[];
  strategy: string;
  insights: string[];
  thoughts: Thought[];
}

export function newReasoningContext(goal = ''): ReasoningContext {
  return { goal, facts: [], strategy: '', insights: [], thoughts: [] };
}

export function addInsight(rc: ReasoningContext, insight: string): ReasoningContext {
  const t = typeof insight === 'string' ? insight.trim() : '';
  if (!t || rc.insights.includes(t)) return rc;
  return { ...rc, insights: addUnique(rc.insights, [t], MAX_INSIGHTS) };
}

export function updateFacts(rc: ReasoningContext, key: string, value: unknown): ReasoningContext {
  if (!key?.trim()) return rc;
  return { ...rc, facts: setEntry(rc.facts, key, value, MAX_FACTS) };
}

export function recordThinking(
  rc: ReasoningContext,
  thinking: string,
  tool_calls: Thought['tool_calls'],
  timestamp = new Date().toISOString(),
): ReasoningContext {
  return { ...rc, thoughts: keepLast([...rc.thoughts, { thinking, tool_calls, timestamp }], MAX_THOUGHTS) };
}

/** The seed's intelligent compression: goal, strategy, 5 newest facts, 3 newest insights, last thought. */
export function compressForContext(rc: ReasoningContext, maxTokens = 1000): string {
  const sections: string[] = [];
  if (rc.goal) sections.push(`GOAL: ${rc.goal}`);
  if (rc.strategy) sections.push(`STRATEGY: ${rc.strategy}`);
  if (rc.facts.length > 0)
    sections.push(
      `FACTS: ${rc.facts
        .slice(-5)
        .map((f) => `${f.key}: ${fmt(f.value)}`)
        .join('; ')}`,
    );
  if (rc.insights.length > 0) sections.push(`INSIGHTS: ${rc.insights.slice(-3).join('; ')}`);
  const last = rc.thoughts.at(-1);
  if (last) sections.push(`LAST THINKING: ${last.thinking.slice(0, 200)}`);
  return cut(sections.join('\n'), maxTokens);
}
