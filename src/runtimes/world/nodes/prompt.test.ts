/**
 * A generation's messages reuse what was rendered for the same subject earlier in the attempt
 * (ambient text, subject text) and read its loop by lookup: these tests hold that reuse to exactly
 * what a fresh rendering would give as the turn's channels grow and its world changes.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { LlmToolLoopNode } from '../documents.ts';
import type { TurnContext } from '../turn-context.ts';
import type { WorkingWorld } from '../world-patch.ts';
import { buildMessages } from './prompt.ts';
import { type AmbientEntry, ambientOf, type ConversationEntry, loopOf } from './shared.ts';

const turn = (): TurnContext =>
  ({
    attempt: {
      attempt_id: 'a1',
      world_slug: 'park',
      attempted_turn: 1,
      simulation_time: null,
      scenario_hash: 'h',
    },
  }) as unknown as TurnContext;

const node = {
  id: 'act',
  prompt_template: { messages: [{ role: 'user', content: '{{subject.rendered}}|{{ambient.visible}}' }] },
} as unknown as LlmToolLoopNode;

const world = (state: string): WorkingWorld => ({
  environments: new Map([['lawn', { content: 'grass' }]]),
  entities: new Map([
    ['bob', { kind: 'agent', environment_label: 'lawn', state, memory: '' }],
    ['ann', { kind: 'agent', environment_label: 'lawn', state: 'idle', memory: '' }],
  ]),
});

const entry = (subject: string | null, inject_as: string, result: unknown): AmbientEntry => ({
  ambient_source_id: inject_as,
  workflow_hash: 'wf',
  run: subject === null ? 'once_per_turn' : 'before_subject_workflow',
  subject_entity_id: subject,
  scope: 'acting_subject',
  visible_to: 'acting_subject',
  inject_as,
  source_hash: 's',
  source_invocation_id: null,
  result: result as never,
});

const prompt = (t: TurnContext, w: WorkingWorld, ambient: AmbientEntry[], fresh: AmbientEntry[] = []) =>
  buildMessages({
    t,
    node,
    workflowHash: 'wf',
    subjectId: 'bob',
    world: w,
    ambient,
    fresh,
    loop: [],
    toolsAvailable: () => '[]',
    corrective: [],
  })[0]!.content;

test("a subject's later generation sees the ambient entries appended or replaced since its first", () => {
  const t = turn();
  const w = world('hungry');
  const shared = entry(null, '/ambient/weather', { temp: 72 });
  const first = prompt(t, w, [shared, entry('ann', '/ambient/mail', 'for ann')]);
  assert.ok(first.includes('"temp": 72') && !first.includes('mail'));
  const grown = prompt(t, w, [
    shared,
    entry('ann', '/ambient/mail', 'for ann'),
    entry('bob', '/ambient/mail', 'hi'),
  ]);
  assert.ok(grown.includes('"mail": "hi"'), grown);
  // Same number of entries, but another result (a retry's fresh call): rendered from the new one.
  const replaced = prompt(t, w, [
    shared,
    entry('ann', '/ambient/mail', 'for ann'),
    entry('bob', '/ambient/mail', 'bye'),
  ]);
  assert.ok(replaced.includes('"mail": "bye"') && !replaced.includes('"hi"'), replaced);
  // What a fresh attempt (no reuse) renders for the same entries, in the channel or just added.
  assert.equal(replaced, prompt(turn(), w, [shared, entry('bob', '/ambient/mail', 'bye')]));
  assert.equal(replaced, prompt(turn(), w, [shared], [entry('bob', '/ambient/mail', 'bye')]));
});

test("a subject's text follows a patch that changed it between its generations", () => {
  const t = turn();
  const w = world('hungry');
  assert.ok(prompt(t, w, []).includes('"state": "hungry"'));
  w.entities.set('bob', { ...w.entities.get('bob')!, state: 'fed' });
  const after = prompt(t, w, []);
  assert.ok(after.includes('"state": "fed"') && !after.includes('hungry'), after);
});

test("a node's loop is its subject's and node's messages, in order, as the conversation grows", () => {
  const msg = (subject: number, node: string, content: string): ConversationEntry => ({
    subject,
    node,
    kind: 'tool_call',
    message: { role: 'assistant', content },
  });
  const conversation: ConversationEntry[] = [msg(0, 'act', 'a'), msg(1, 'act', 'b'), msg(0, 'other', 'c')];
  const expect = (s: number, n: string) => conversation.filter((c) => c.subject === s && c.node === n);
  assert.deepEqual(loopOf(conversation, 0, 'act'), expect(0, 'act'));
  conversation.push(msg(1, 'act', 'd'), msg(0, 'act', 'e'));
  assert.deepEqual(loopOf(conversation, 0, 'act'), expect(0, 'act'));
  assert.deepEqual(loopOf(conversation, 1, 'act'), expect(1, 'act'));
  assert.deepEqual(loopOf(conversation, 0, 'other'), expect(0, 'other'));
  assert.deepEqual(loopOf(conversation, 2, 'act'), []);
  // The same list cut shorter is read afresh, not through the index of what it held before.
  conversation.splice(2);
  assert.deepEqual(loopOf(conversation, 0, 'act'), expect(0, 'act'));
  assert.deepEqual(loopOf(conversation, 1, 'act'), expect(1, 'act'));
});

test("a subject's ambient lookup is the channel's shared entries and its own, in channel order", () => {
  const channel = [
    entry(null, '/ambient/a', 1),
    entry('bob', '/ambient/b', 2),
    entry('ann', '/ambient/c', 3),
    entry(null, '/ambient/d', 4),
  ];
  const scan = (id: string) =>
    channel.filter((e) => e.run !== 'before_subject_workflow' || e.subject_entity_id === id);
  assert.deepEqual(ambientOf(channel, 'bob'), scan('bob'));
  channel.push(entry('bob', '/ambient/e', 5), entry(null, '/ambient/f', 6));
  assert.deepEqual(ambientOf(channel, 'bob'), scan('bob'));
  assert.deepEqual(ambientOf(channel, 'ann'), scan('ann'));
  assert.deepEqual(ambientOf(channel, 'cat'), scan('cat'));
  channel.splice(2);
  assert.deepEqual(ambientOf(channel, 'bob'), scan('bob'));
});
