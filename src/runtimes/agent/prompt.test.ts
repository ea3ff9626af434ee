// Snapshot tests of the pure prompt builder in each mode. `UPDATE_SNAPSHOTS=1` rewrites the files
// in __snapshots__/ (review the diff: the prompt is a public behaviour).
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { buildConversationContext, buildReasoningPrompt, type PromptTool } from './prompt.ts';
import type { AgentState } from './state/agent-state.ts';
import { addInsight, newReasoningContext, recordThinking, updateFacts } from './state/reasoning-context.ts';
import { newUserProfile, updateFromInteraction } from './state/user-profile.ts';

const T = '2026-01-01T00:00:00.000Z';
const dir = join(import.meta.dirname, '__snapshots__');

function matchSnapshot(name: string, actual: string): void {
  const file = join(dir, `${name}.txt`);
  if (process.env.UPDATE_SNAPSHOTS === '1' || !existsSync(file)) writeFileSync(file, actual);
  assert.equal(actual, readFileSync(file, 'utf8'), `snapshot ${name} differs (UPDATE_SNAPSHOTS=1 to accept)`);
}

const tools: PromptTool[] = [
  {
    name: 'add',
    description: 'Adds two numbers.',
    input_schema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } },
  },
  { name: 'fail', description: 'Always fails with the given reason.' },
];

function fullState(mode: 'fast' | 'deep' | 'adapt'): AgentState {
  let reasoning = newReasoningContext('What is 2 + 3?');
  reasoning = updateFacts(reasoning, 'a', 2);
  reasoning = addInsight(reasoning, 'the user likes short answers');
  reasoning = recordThinking(reasoning, 'I should call add.', [{ name: 'add', args: { a: 2, b: 3 } }], T);
  const profile = updateFromInteraction(
    newUserProfile('ada', T),
    { communication_style: 'concise', goals: ['learn arithmetic'], expertise: ['typescript'] },
    T,
  );
  return {
    execution: {
      query: 'What is 2 + 3?',
      user_id: 'ada',
      iteration: 2,
      max_iterations: 6,
      mode,
      effective_mode: mode === 'deep' ? 'deep' : 'fast',
      stop_reason: null,
      messages: [
        { role: 'user', content: 'hello', timestamp: T },
        { role: 'assistant', content: 'hi Ada', timestamp: T },
        { role: 'user', content: 'What is 2 + 3?', timestamp: T },
      ],
      response: null,
      pending_calls: [],
      completed_calls: [
        {
          contract_id: 'c1',
          name: 'add',
          args: { a: 2, b: 3 },
          status: 'COMPLETED',
          success: true,
          result: { sum: 5 },
          error_message: null,
        },
        {
          contract_id: 'c2',
          name: 'fail',
          args: { reason: 'x' },
          status: 'FAILED',
          success: false,
          result: null,
          error_message: 'tool_error: cannot comply: x',
        },
      ],
      debug: false,
      notifications: [],
    },
    reasoning,
    user_profile: profile,
    emotion: { emotion: 'curious', intensity: 0.6, modulation: 'Be warm and brief.' },
    memory: {
      working_memory_summary: 'user: hello\nassistant: hi Ada',
      relevant_long_term_memory: [{ memory_id: 7, text: 'Ada prefers metric units', kind: 'preference' }],
    },
  };
}

for (const mode of ['fast', 'deep', 'adapt'] as const) {
  test(`the reasoning prompt in ${mode} mode matches its snapshot`, () => {
    matchSnapshot(`prompt-${mode}`, buildReasoningPrompt(fullState(mode), tools));
  });
}

test('the prompt has every part seed 000 names: working memory, long-term memory, emotion modulation, ECS/MCP instructions', () => {
  const p = buildReasoningPrompt(fullState('fast'), tools);
  assert.match(p, /^USER CONTEXT:\nCOMMUNICATION: concise/);
  assert.match(p, /WORKING MEMORY:\nuser: hello/);
  assert.match(p, /RELEVANT LONG-TERM MEMORY:\n- \[preference\] Ada prefers metric units/);
  assert.match(p, /EMOTION MODULATION: Be warm and brief\./);
  assert.match(p, /ECS: when only the user/);
  assert.match(p, /MCP tools:/);
  assert.match(p, /✓ add → \{"sum":5\}/);
  assert.match(p, /✗ fail \(FAILED\) → tool_error: cannot comply: x/);
  assert.match(p, /Iteration 2\/6/);
});

test('the builder is pure: same state, same prompt; the mode argument overrides the state', () => {
  const s = fullState('adapt');
  const before = JSON.stringify(s);
  assert.equal(buildReasoningPrompt(s, tools), buildReasoningPrompt(s, tools));
  assert.equal(JSON.stringify(s), before, 'the state is not modified');
  assert.match(buildReasoningPrompt(s, tools, 'deep'), /DEEP MODE/);
  assert.match(buildReasoningPrompt(s, tools), /FAST MODE/);
});

test('a state without profile, emotion, memory or tools still builds a complete prompt', () => {
  const s = fullState('fast');
  const bare: AgentState = { ...s, user_profile: null, emotion: null, memory: null };
  const p = buildReasoningPrompt(bare, []);
  assert.match(p, /^WORKING MEMORY:\n\(no earlier turns\)/);
  assert.match(p, /AVAILABLE TOOLS:\n\(none\)/);
  assert.doesNotMatch(p, /USER CONTEXT|EMOTION/);
  assert.deepEqual(buildConversationContext(s).at(-1), { role: 'user', content: 'What is 2 + 3?' });
});
