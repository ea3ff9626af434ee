/**
 * The stored snapshot format: what `Snapshot.of` stores reads back as the same world, in the same
 * order, whatever the ids hold (quotes, backslashes, characters of several UTF-8 bytes, integer-like
 * ids an object would list first, keys an object treats specially), and each entity is found
 * through the key table without building the world, whether the table is stored (format 3) or
 * built on first use (format 2). Rows of the first format (one JSON body) read the same.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeFirstFormat, entityMember, Snapshot, type StoredSnapshot } from './snapshot-format.ts';
import type { EntityState, WorkingWorld } from './world-patch.ts';

const TRICKY = [
  'bob',
  '42',
  '7',
  '0',
  '__proto__',
  'constructor',
  'a"b',
  'a"b"c',
  'back\\slash',
  'café ☕',
  'café ☕☕',
  '😀x',
  'e\n1',
  '007',
];

function worldOf(ids: readonly string[]): WorkingWorld {
  const entities = new Map<string, EntityState>();
  for (const [i, id] of ids.entries())
    entities.set(
      id,
      i % 3 === 0
        ? { kind: 'agent', environment_label: `env${i % 4}`, state: `state ${i} "quoted" ü`, memory: `m${i}` }
        : { kind: 'prop', environment_label: `env${i % 4}`, state: `state ${i}` },
    );
  const environments = new Map([
    ['park', { content: 'a park' }],
    ['café', { content: '"inside" \\ ☕' }],
  ]);
  return { entities, environments };
}

/** A copy of `world` whose entity objects are its own (`Snapshot.of` freezes what it is given). */
function copy(world: WorkingWorld): WorkingWorld {
  return {
    entities: new Map([...world.entities].map(([k, e]) => [k, { ...e }])),
    environments: new Map([...world.environments].map(([k, v]) => [k, { ...v }])),
  };
}

function firstFormat(world: WorkingWorld): string {
  return JSON.stringify({
    entities: [...world.entities].map(([id, e]) => [
      id,
      e.kind,
      e.environment_label,
      e.state,
      e.kind === 'agent' ? (e.memory ?? '') : null,
    ]),
    environments: [...world.environments].map(([k, v]) => [k, v.content]),
  });
}

function assertSame(snapshot: Snapshot, world: WorkingWorld, what: string): void {
  const ids = [...world.entities.keys()];
  // Found one by one before the world is built, then as a whole, in the world's order.
  for (const [i, id] of ids.entries()) {
    assert.equal(snapshot.position(id), i, `${what}: position of ${JSON.stringify(id)}`);
    assert.deepEqual(snapshot.entity(id), world.entities.get(id), `${what}: entity ${JSON.stringify(id)}`);
  }
  assert.equal(snapshot.position('nobody'), undefined);
  assert.equal(snapshot.entity('nobody'), undefined);
  assert.equal(
    snapshot.text.toString(),
    ids.map((id) => entityMember(id, world.entities.get(id)!)).join(','),
  );
  // The entity list first (object answers are made from it): parsed from the text, not the world.
  const list = snapshot.entityList;
  assert.deepEqual(
    list.ids.map((id, i) => [id, list.entities[i]]),
    [...world.entities],
    `${what}: the entity list, in order`,
  );
  for (const e of list.entities) assert.ok(Object.isFrozen(e), 'listed entities are frozen');
  assert.deepEqual([...snapshot.world.entities], [...world.entities], `${what}: the world, in order`);
  assert.equal(
    snapshot.world.entities.get(list.ids[0]!),
    list.entities[0],
    'the world shares the listed objects',
  );
  assert.deepEqual([...snapshot.environments], [...world.environments]);
  for (const e of snapshot.world.entities.values())
    assert.ok(Object.isFrozen(e), 'shared entities are frozen');
}

test('a stored snapshot reads back as the same world, in order, with any ids', () => {
  for (const ids of [
    TRICKY,
    // Enough entities for several parse runs and for probes past taken slots of the key table.
    [...Array.from({ length: 777 }, (_, i) => `e${i}`), ...TRICKY],
    // Only ordinary ids: the fast path of building the world.
    Array.from({ length: 123 }, (_, i) => `entity-${i}`),
    [],
  ]) {
    const world = worldOf(ids);
    for (const withKeyTable of [false, true]) {
      const { stored } = Snapshot.of(copy(world), withKeyTable);
      assert.equal(JSON.parse(stored.body).format, withKeyTable ? 3 : 2);
      assertSame(Snapshot.parse(stored), world, `${ids.length} ids, format ${withKeyTable ? 3 : 2}`);
      assert.equal(
        stored.bytes,
        Buffer.byteLength(stored.body) +
          Buffer.byteLength(stored.entities_text!) +
          stored.entities_index!.length,
      );
    }
  }
});

test("an entity's member is the JSON of its view object, byte for byte", () => {
  const agentWithout: EntityState = { kind: 'agent', environment_label: 'e', state: 's' };
  const lone = { kind: 'prop', environment_label: '\ud800 lone', state: 'tab\t nul\u0000 \u2028' } as const;
  for (const [id, e] of [...worldOf(TRICKY).entities, ['x', agentWithout], ['\udfff', lone]] as const) {
    const view =
      e.kind === 'agent'
        ? { kind: e.kind, environment_label: e.environment_label, state: e.state, memory: e.memory ?? '' }
        : { kind: e.kind, environment_label: e.environment_label, state: e.state };
    assert.equal(entityMember(id, e), `${JSON.stringify(id)}:${JSON.stringify(view)}`, JSON.stringify(id));
  }
});

test('the index is read from a buffer at any offset (drivers hand out views into pooled memory)', () => {
  const world = worldOf(TRICKY);
  const { stored } = Snapshot.of(copy(world), true);
  const shifted = Buffer.alloc(stored.entities_index!.length + 3);
  stored.entities_index!.forEach((b, i) => {
    shifted[i + 3] = b;
  });
  assertSame(Snapshot.parse({ ...stored, entities_index: shifted.subarray(3) }), world, 'unaligned index');
});

test('the text is read as a string or as its UTF-8 bytes at any offset (the store reads it as bytes where it can)', () => {
  const world = worldOf([...Array.from({ length: 60 }, (_, i) => `e${i}`), ...TRICKY]);
  const { stored } = Snapshot.of(copy(world));
  const utf8 = Buffer.from(stored.entities_text!);
  const shifted = new Uint8Array(utf8.length + 5);
  shifted.set(utf8, 5);
  for (const [what, text] of [
    ['bytes', new Uint8Array(utf8)],
    ['bytes at an offset', shifted.subarray(5)],
  ] as const) {
    const read = Snapshot.parse({ ...stored, entities_text: text });
    assertSame(read, world, what);
    for (const id of TRICKY)
      assert.equal(read.entity(id)?.state, world.entities.get(id)!.state, `${what}: ${id}`);
  }
  // A byte array shorter than the index says is refused like such a string.
  assert.throws(
    () => Snapshot.parse({ ...stored, entities_text: utf8.subarray(0, utf8.length - 1) }),
    /does not match its text/,
  );
});

test('a row of the first format (one JSON body, no text or index) reads as the same world', () => {
  const world = worldOf([...TRICKY, 'last']);
  const row: StoredSnapshot = { body: firstFormat(world), entities_text: null, entities_index: null };
  assert.deepEqual([...decodeFirstFormat(row.body).entities], [...world.entities]);
  assertSame(Snapshot.parse(row), world, 'first format');
});

test('an index that does not match the text is refused, not read past', () => {
  const { stored } = Snapshot.of(copy(worldOf(TRICKY)));
  assert.throws(
    () => Snapshot.parse({ ...stored, entities_text: `${stored.entities_text} ` }),
    /does not match its text/,
  );
  // Offsets that cut members elsewhere than at their commas, or run backwards.
  const ends = new Int32Array(new Uint8Array(stored.entities_index!).buffer);
  for (const bad of [
    [ends[0]! + 1, ...ends.subarray(1)],
    [ends[1]!, ends[0]!, ...ends.subarray(2)],
    [...ends.subarray(0, -1)],
  ]) {
    const index = Buffer.from(new Int32Array(bad).buffer);
    assert.throws(() => Snapshot.parse({ ...stored, entities_index: index }), /does not match its text/);
  }
  assert.throws(() => Snapshot.parse({ ...stored, entities_index: null }), /not both/);
  assert.throws(() => Snapshot.parse({ ...stored, entities_text: null }), /not both/);
  assert.throws(
    () => Snapshot.parse({ ...stored, entities_index: stored.entities_index!.subarray(1) }),
    /whole number/,
  );
  // Text of the right length whose members are not keyed: found out, not scanned past.
  const unkeyed = Snapshot.parse({
    ...stored,
    entities_text: stored.entities_text!.replaceAll('"', "'"),
  });
  assert.throws(() => unkeyed.position('bob'), /does not start with its key/);
});

test('a stored key table that does not match the text or its count is refused', () => {
  const world = worldOf([...Array.from({ length: 40 }, (_, i) => `e${i}`), ...TRICKY]);
  const { stored } = Snapshot.of(copy(world), true);
  const n = world.entities.size;
  // The member ends come first; the key table's slots after them.
  const index = () => new Int32Array(new Uint8Array(stored.entities_index!).buffer);
  const parseWith = (ints: Int32Array, body = stored.body) =>
    Snapshot.parse({ ...stored, body, entities_index: Buffer.from(ints.buffer) });
  assertSame(parseWith(index()), world, 'the stored table, copied');
  // A position listed twice (and another not at all), or one past the last entity.
  const twice = index();
  const slots = twice.subarray(n);
  const a = slots.findIndex((v) => v !== 0);
  const b = slots.findIndex((v, i) => i > a && v !== 0);
  slots[b] = slots[a]!;
  assert.throws(() => parseWith(twice), /does not list each entity once/);
  const past = index();
  past[n + past.subarray(n).findIndex((v) => v !== 0)] = n + 1;
  assert.throws(() => parseWith(past), /does not list each entity once/);
  // A count of entities the index does not hold.
  assert.throws(
    () => parseWith(index(), stored.body.replace(`"entities":${n}`, `"entities":${n - 1}`)),
    /does not match its count of entities/,
  );
  // Text whose members are not keyed is refused when read, not when an entity is looked for.
  assert.throws(
    () => Snapshot.parse({ ...stored, entities_text: stored.entities_text!.replaceAll('"', "'") }),
    /member 0 does not start with its key/,
  );
  assert.throws(
    () => Snapshot.parse({ ...stored, body: stored.body.replace('"format":3', '"format":4') }),
    /unknown format \(4\)/,
  );
});
