/**
 * The JSON answer spliced from a snapshot's text is the object answer: the same entities and values,
 * each changed entity in its place and new ones after, in the world's order — also for integer-like
 * ids, which the object answer (a JavaScript object) lists first.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Snapshot } from './snapshot-format.ts';
import type { SnapshotBase } from './snapshots.ts';
import { worldView } from './state.ts';
import type { ChangedLayer } from './version-tails.ts';
import type { EntityState, WorkingWorld } from './world-patch.ts';
import { entitiesText, escapedEntitiesText } from './world-text.ts';

const prop = (state: string): EntityState => ({ kind: 'prop', environment_label: 'park', state });

test('the spliced text parses to the object answer, in the world order, integer-like ids included', () => {
  const ids = ['bob', '42', 'a"b', '7', 'café ☕', '😀'];
  const world: WorkingWorld = {
    entities: new Map(ids.map((id, i) => [id, prop(`state ${i}`)])),
    environments: new Map([['park', { content: 'a park' }]]),
  };
  const { snapshot } = Snapshot.of({ entities: new Map(world.entities), environments: world.environments });
  const base = {
    world_slug: 'w',
    turn: 0,
    bytes: 0,
    snapshot,
    cold: false,
    derived: { snapshot_id: null, bytes: 0, tails: new Map() },
  };
  const changes: Array<[string, EntityState]> = [
    ['7', prop('changed "7" ü')],
    ['bob', { kind: 'agent', environment_label: 'park', state: 'moved', memory: 'a\nb' }],
    ['3', prop('new, integer-like')],
    ['zed', prop('new')],
  ];
  const changed: ChangedLayer = {
    entities: new Map(changes.map(([id, entity]) => [id, { turn: 1, entity_id: id, entity }])),
    environments: new Map(),
  };
  for (const round of ['first', 'again (positions and texts kept on the versions)']) {
    const text = Buffer.concat(entitiesText(base, changed)).toString();
    const after = new Map(world.entities);
    for (const [id, e] of changes) after.set(id, e);
    const object = worldView('w', 1, null, { entities: after, environments: world.environments }).entities;
    assert.deepStrictEqual(JSON.parse(text), object, round);
    // Keys in the world's order: the snapshot's, changed ones in place, new ones after.
    const keys = [...text.matchAll(/"((?:[^"\\]|\\.)*)":\{"kind"/g)].map((m) => JSON.parse(`"${m[1]}"`));
    assert.deepEqual(keys, [...ids, '3', 'zed'], round);
  }
});

test("the escaped text, made from the cached snapshot's escaped text, is the spliced text as inside a JSON string", () => {
  const ids = ['bob', '42', 'a"b', 'back\\slash', 'café ☕', '😀'];
  const world: WorkingWorld = {
    entities: new Map(ids.map((id, i) => [id, prop(`state "${i}" \\ é`)])),
    environments: new Map([['park', { content: 'a park' }]]),
  };
  const { snapshot } = Snapshot.of({ entities: new Map(world.entities), environments: world.environments });
  const base = (cold: boolean, snapshot_id: string | null): SnapshotBase => ({
    world_slug: 'w',
    turn: 0,
    bytes: 0,
    snapshot,
    cold,
    derived: { snapshot_id, bytes: 0, tails: new Map() },
  });
  const changed: ChangedLayer = {
    entities: new Map(
      (
        [
          ['a"b', prop('changed "quoted" \\')],
          ['😀', { kind: 'agent', environment_label: 'park', state: 'moved', memory: 'a\nb' }],
          ['new "one"', prop('added')],
        ] as Array<[string, EntityState]>
      ).map(([id, entity]) => [id, { turn: 1, entity_id: id, entity }]),
    ),
    environments: new Map(),
  };
  // A read that found the snapshot cached: its escaped text is made once, counted, and reused.
  const warm = base(false, 'snapshot-1');
  for (const round of ['made', 'kept']) {
    const text = Buffer.concat(entitiesText(warm, changed)).toString();
    const escaped = escapedEntitiesText(warm, changed);
    assert.ok(escaped, round);
    assert.equal(Buffer.concat(escaped).toString(), JSON.stringify(text).slice(1, -1), round);
    assert.ok(warm.derived.escaped && warm.derived.bytes >= warm.derived.escaped.text.length, round);
  }
  // A cold read, or a snapshot the cache does not keep: none made (the caller escapes the answer).
  assert.equal(escapedEntitiesText(base(true, 'snapshot-1'), changed), null);
  assert.equal(escapedEntitiesText(base(false, null), changed), null);
});
