/** The attempt's working world: advanced lazily by the staged patches, rebuilt when they are not its own. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type StagedPatch, type TurnContext, workingWorld } from './turn-context.ts';
import { cloneWorld, type WorkingWorld } from './world-patch.ts';

const base = (): WorkingWorld => ({
  environments: new Map([['park', { content: 'sunny' }]]),
  entities: new Map([['bob', { kind: 'agent', environment_label: 'park', state: 'hungry', memory: '' }]]),
});

/** A context holding only what `workingWorld` reads. */
function context(): TurnContext {
  const world = base();
  return { base: world, working: { applied: 0, world: cloneWorld(world), last: null } } as TurnContext;
}

const staged = (patch_seq: number, invocation: string, state: string): StagedPatch => ({
  patch_seq,
  subject_entity_id: 'bob',
  workflow_hash: 'w',
  workflow_node_id: 'n',
  source_invocation_id: invocation,
  patch: { narration: state, effects: [{ op: 'set_entity_state', entity_id: 'bob', state }] },
  transitions: [],
});

const bob = (w: WorkingWorld) => w.entities.get('bob')?.state;

test('the working world applies each staged patch once, in order', () => {
  const t = context();
  const first = [staged(1, 'i1', 'fed')];
  assert.equal(bob(workingWorld(t, first)), 'fed');
  assert.equal(bob(workingWorld(t, [...first, staged(2, 'i2', 'napping')])), 'napping');
  assert.equal(t.working.applied, 2);
  assert.equal(bob(t.base), 'hungry', 'the base is left as it was');
});

test('patches another process staged in place of this one’s are applied from the base', () => {
  const t = context();
  // This process applied its own second patch, whose step never committed…
  workingWorld(t, [staged(1, 'i1', 'fed'), staged(2, 'mine', 'napping')]);
  // …and the process that took the run over staged another one in its place.
  const theirs = [staged(1, 'i1', 'fed'), staged(2, 'theirs', 'jogging')];
  assert.equal(bob(workingWorld(t, theirs)), 'jogging');
  assert.equal(bob(workingWorld(t, theirs.slice(0, 1))), 'fed', 'fewer patches: rebuilt too');
});
