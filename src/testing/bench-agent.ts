/**
 * The agent bench's interaction, shared by the bench (`bench/lib/agent-interaction.ts`,
 * `bench/agent/count-tx.ts`) and the tests that count its commits: the scripted model's replies for
 * one message with one `add` tool call, and the agent's settings beside its sources and tools (fast
 * mode; no emotion, long-term memory or synthesis).
 */
import { reasoningReply } from './strict-replies.ts';

export const BENCH_AGENT_SCRIPT = {
  rules: [
    {
      match: { message_matches: '✓ add' },
      reply: { json: reasoningReply({ thinking: 'done', response: 'The sum is 5.' }) },
    },
  ],
  default: {
    json: reasoningReply({ thinking: 'use add', tool_calls: [{ name: 'add', args: { a: 2, b: 3 } }] }),
  },
};

export const BENCH_AGENT_SETTINGS = {
  mode: 'fast',
  emotion: { enabled: false },
  memory: { long_term_limit: 0, working_memory_turns: 3 },
  synthesis: { enabled: false, threshold: 3 },
} as const;
