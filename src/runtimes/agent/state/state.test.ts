import assert from 'node:assert/strict';
import { test } from 'node:test';
import { callViews, nextIteration, shouldContinue } from './execution-state.ts';
import { decideMode, initialMode } from './mode.ts';
import {
  addInsight,
  compressForContext,
  MAX_FACTS,
  newReasoningContext,
  recordThinking,
  updateFacts,
} from './reasoning-context.ts';
import {
  applySynthesis,
  compressForInjection,
  newUserProfile,
  PROFILE_BOUNDS,
  updateFromInteraction,
} from './user-profile.ts';

const T = '2026-01-01T00:00:00.000Z';

test('ReasoningContext keeps the 20 newest facts; updating a known key keeps its place', () => {
  let rc = newReasoningContext('g');
  for (let i = 0; i < 25; i++) rc = updateFacts(rc, `k${i}`, i);
  assert.equal(rc.facts.length, MAX_FACTS);
  assert.equal(rc.facts[0]!.key, 'k5');
  rc = updateFacts(rc, 'k6', 'changed');
  assert.equal(rc.facts[1]!.key, 'k6');
  assert.equal(rc.facts[1]!.value, 'changed');
  assert.equal(updateFacts(rc, '  ', 1), rc, 'a blank key changes nothing');
});

test('ReasoningContext insights are trimmed, deduplicated and bounded to 10', () => {
  let rc = newReasoningContext();
  rc = addInsight(rc, ' a ');
  rc = addInsight(rc, 'a');
  rc = addInsight(rc, '');
  assert.deepEqual(rc.insights, ['a']);
  for (let i = 0; i < 15; i++) rc = addInsight(rc, `i${i}`);
  assert.equal(rc.insights.length, 10);
  assert.equal(rc.insights[0], 'i5');
});

test('ReasoningContext keeps the 5 newest thoughts', () => {
  let rc = newReasoningContext();
  for (let i = 0; i < 8; i++) rc = recordThinking(rc, `t${i}`, [], T);
  assert.deepEqual(
    rc.thoughts.map((t) => t.thinking),
    ['t3', 't4', 't5', 't6', 't7'],
  );
});

test('compressForContext shows goal, strategy, 5 facts, 3 insights, the last thought, within its budget', () => {
  let rc = { ...newReasoningContext('find candy'), strategy: 'ask the machine' };
  for (let i = 0; i < 7; i++) rc = updateFacts(rc, `f${i}`, i);
  for (let i = 0; i < 5; i++) rc = addInsight(rc, `in${i}`);
  rc = recordThinking(rc, 'x'.repeat(300), [], T);
  const text = compressForContext(rc);
  assert.equal(
    text,
    `GOAL: find candy\nSTRATEGY: ask the machine\nFACTS: f2: 2; f3: 3; f4: 4; f5: 5; f6: 6\nINSIGHTS: in2; in3; in4\nLAST THINKING: ${'x'.repeat(200)}`,
  );
  assert.equal(compressForContext(rc, 30).length, 30);
  assert.equal(compressForContext(newReasoningContext()), '');
});

test('UserProfile bounds hold for every collection the interaction updates', () => {
  let p = newUserProfile('u1', T);
  for (let i = 0; i < 30; i++) {
    p = updateFromInteraction(
      p,
      {
        preferences: { [`p${i}`]: i },
        goals: [`g${i}`],
        expertise: [`e${i}`],
        project_context: { [`proj${i}`]: `d${i}` },
        success_pattern: `s${i}`,
        failure_pattern: `f${i}`,
        communication_style: 'concise',
      },
      T,
    );
  }
  assert.equal(p.interaction_count, 30);
  assert.equal(p.goals.length, PROFILE_BOUNDS.goals);
  assert.equal(p.goals.at(-1), 'g29');
  assert.equal(p.expertise_areas.length, 15);
  assert.equal(p.projects.length, 10);
  assert.equal(p.success_patterns.length, 5);
  assert.equal(p.failure_patterns.length, 5);
  assert.equal(p.preferences.length, PROFILE_BOUNDS.preferences);
  assert.equal(p.communication_style, 'concise');
  const again = updateFromInteraction(p, { goals: ['g29'], success_pattern: 's29' }, T);
  assert.deepEqual(again.goals, p.goals, 'a known goal is not added twice');
  assert.deepEqual(again.success_patterns, p.success_patterns);
});

test('synthesis replaces non-empty fields, stays bounded and bumps synthesis_version', () => {
  const p = updateFromInteraction(
    newUserProfile('u', T),
    { goals: ['old'], communication_style: 'terse' },
    T,
  );
  const s = applySynthesis(
    p,
    { goals: Array.from({ length: 20 }, (_, i) => `g${i}`), communication_style: '' },
    T,
  );
  assert.equal(s.synthesis_version, 2);
  assert.equal(s.goals.length, 10);
  assert.equal(s.communication_style, 'terse', 'an empty value keeps the field');
  assert.equal(s.interaction_count, 1);
});

test('compressForInjection follows the seed and is cut at 800', () => {
  let p = newUserProfile('u', T);
  p = updateFromInteraction(
    p,
    {
      communication_style: 'technical',
      goals: ['a', 'b', 'c', 'd'],
      preferences: { lang: 'ts' },
      project_context: { noema: 'agent server' },
      expertise: ['sql'],
    },
    T,
  );
  p = { ...p, constraints: ['no cloud'] };
  assert.equal(
    compressForInjection(p),
    'COMMUNICATION: technical\nCURRENT GOALS: b; c; d\nPREFERENCES: lang: ts\nACTIVE PROJECTS: noema: agent server\nEXPERTISE: sql\nCONSTRAINTS: no cloud',
  );
  const long = { ...p, communication_style: 'x'.repeat(2000) };
  assert.equal(compressForInjection(long).length, 800);
  assert.equal(compressForInjection(newUserProfile('empty', T)), '');
});

test('loop control names every reason to stop', () => {
  const base = { iteration: 0, max_iterations: 3, response: null, stop_reason: null };
  assert.deepEqual(nextIteration(base), { continue: true });
  assert.deepEqual(nextIteration({ ...base, iteration: 3 }), {
    continue: false,
    stop_reason: 'max_iterations',
  });
  assert.deepEqual(nextIteration({ ...base, response: 'hi' }), { continue: false, stop_reason: 'response' });
  assert.deepEqual(nextIteration({ ...base, stop_reason: 'cancelled' }), {
    continue: false,
    stop_reason: 'cancelled',
  });
});

test('pending and completed calls are views of tool_call contracts, success read from status', () => {
  const c = (id: string, status: string, action_type = 'tool_call') => ({
    contract_id: id,
    action_type,
    status,
    payload: { name: 'add', args: { a: 1 } },
    result: status === 'COMPLETED' ? { sum: 1 } : null,
    error_message: status === 'FAILED' ? 'boom' : null,
  });
  const v = callViews([c('1', 'PENDING'), c('2', 'COMPLETED'), c('3', 'FAILED'), c('4', 'COMPLETED', 'llm')]);
  assert.deepEqual(
    v.pending.map((x) => x.contract_id),
    ['1'],
  );
  assert.deepEqual(
    v.completed.map((x) => [x.contract_id, x.success]),
    [
      ['2', true],
      ['3', false],
    ],
  );
  const exec = {
    query: 'q',
    user_id: 'u',
    iteration: 1,
    max_iterations: 3,
    mode: 'adapt' as const,
    effective_mode: 'fast' as const,
    stop_reason: null,
    messages: [],
    response: null,
    pending_calls: v.pending,
    completed_calls: v.completed,
    debug: false,
    notifications: [],
  };
  assert.equal(shouldContinue(exec), true);
  assert.equal(shouldContinue({ ...exec, pending_calls: [] }), false);
});

test('one mode controller: fixed modes stay, adapt starts fast and escalates', () => {
  assert.equal(initialMode('adapt'), 'fast');
  assert.equal(initialMode('deep'), 'deep');
  assert.equal(
    decideMode({ mode: 'fast', current: 'fast', switch_mode: 'deep', iteration: 1 }).effective,
    'fast',
  );
  assert.equal(
    decideMode({ mode: 'adapt', current: 'fast', switch_mode: 'deep', iteration: 1 }).effective,
    'deep',
  );
  assert.equal(
    decideMode({ mode: 'adapt', current: 'fast', tool_failed: true, iteration: 1 }).effective,
    'deep',
  );
  assert.equal(
    decideMode({ mode: 'adapt', current: 'fast', iteration: 2, escalate_after: 2 }).effective,
    'deep',
  );
  assert.equal(
    decideMode({ mode: 'adapt', current: 'fast', iteration: 1, escalate_after: 2 }).effective,
    'fast',
  );
  assert.equal(
    decideMode({ mode: 'adapt', current: 'deep', switch_mode: 'fast', iteration: 5 }).effective,
    'fast',
  );
});
