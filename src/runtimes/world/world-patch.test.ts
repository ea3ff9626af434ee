/** WorldPatch validation and application against a live working world (seed 004 Phase D). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { applyWorldPatch, validateWorldPatch, type WorkingWorld } from './world-patch.ts';

const world = (): WorkingWorld => ({
  environments: new Map([['park', { content: 'sunny' }]]),
  entities: new Map([
    ['bob', { kind: 'agent', environment_label: 'park', state: 'hungry', memory: '' }],
    ['crumb', { kind: 'prop', environment_label: 'park', state: 'on the plate' }],
  ]),
});

test('a patch with empty effects is valid and changes nothing', () => {
  const w = world();
  assert.deepEqual(validateWorldPatch(w, { narration: 'Nothing.', effects: [] }), []);
  assert.deepEqual(applyWorldPatch(w, { narration: 'Nothing.', effects: [] }), []);
  assert.deepEqual(w, world());
});

test('the three ops apply: entity state, agent memory, environment content', () => {
  const w = world();
  const t = applyWorldPatch(w, {
    narration: 'x',
    effects: [
      { op: 'set_entity_state', entity_id: 'bob', state: 'fed' },
      { op: 'append_entity_memory', entity_id: 'bob', content: 'ate' },
      { op: 'append_entity_memory', entity_id: 'bob', content: 'napped' },
      { op: 'set_environment_content', environment_label: 'park', content: 'windy' },
    ],
  });
  assert.equal(w.entities.get('bob')?.state, 'fed');
  assert.equal(w.entities.get('bob')?.memory, 'ate\nnapped');
  assert.equal(w.environments.get('park')?.content, 'windy');
  assert.deepEqual(t[2], {
    op: 'append_entity_memory',
    target: { entity_id: 'bob' },
    state_before: 'ate',
    state_after: 'ate\nnapped',
  });
});

test('unknown entity, unknown environment and memory on a prop are each refused', () => {
  const problems = validateWorldPatch(world(), {
    narration: 'x',
    effects: [
      { op: 'set_entity_state', entity_id: 'alice', state: 'here' },
      { op: 'set_environment_content', environment_label: 'beach', content: 'sand' },
      { op: 'append_entity_memory', entity_id: 'crumb', content: 'I was eaten' },
    ],
  });
  assert.deepEqual(
    problems.map((p) => p.path),
    ['/effects/0', '/effects/1', '/effects/2'],
  );
  assert.match(problems[2]!.message, /prop/);
});

test('ids are not normalized: "Bob" is not "bob"', () => {
  const p = validateWorldPatch(world(), {
    narration: 'x',
    effects: [{ op: 'set_entity_state', entity_id: 'Bob', state: 'x' }],
  });
  assert.equal(p.length, 1);
});

test('other ops and extra fields are refused by the schema', () => {
  assert.ok(
    validateWorldPatch(world(), { narration: 'x', effects: [{ op: 'delete_entity', entity_id: 'bob' }] })
      .length > 0,
  );
  assert.ok(
    validateWorldPatch(world(), { narration: 'x', effects: [], agent_state_after: 'fed' }).length > 0,
  );
  assert.ok(validateWorldPatch(world(), { effects: [] }).length > 0);
});

test("state_before is per patch: the second patch sees the first one's result", () => {
  const w = world();
  applyWorldPatch(w, {
    narration: 'a',
    effects: [{ op: 'set_entity_state', entity_id: 'crumb', state: 'half' }],
  });
  const t = applyWorldPatch(w, {
    narration: 'b',
    effects: [{ op: 'set_entity_state', entity_id: 'crumb', state: 'gone' }],
  });
  assert.equal(t[0]!.state_before, 'half');
});
