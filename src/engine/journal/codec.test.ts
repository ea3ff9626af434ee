import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { GraphSpec, Json } from '../engine.ts';
import { compileGraph } from '../graph/compile.ts';
import type { NodeDelta } from '../run/state.ts';
import { decodeEntry, encodeDelta, encodeDeltaText, encodeEntry, tables } from './codec.ts';
import type { JournalEntry, StepEntry } from './entries.ts';

const spec: GraphSpec = {
  entry: 'reason',
  channels: {
    messages: { reducer: 'append' },
    count: { reducer: 'value', default: 0 },
    z: { reducer: 'value' },
  },
  nodes: [
    { id: 'reason', type: 'r' },
    { id: 'tool', type: 't' },
    { id: 'end', type: 'terminal' },
  ],
  connectors: [
    { from: 'reason', to: 'tool', route: 'tool' },
    { from: 'reason', to: 'end', route: 'done' },
    { from: 'reason', to: 'end', route: 'also' },
    { from: 'tool', to: 'reason' },
  ],
};
const graph = compileGraph(spec, 'h');

const json: fc.Arbitrary<Json> = fc.jsonValue() as fc.Arbitrary<Json>;
const reasonRoute = fc.oneof(
  fc.constantFrom('tool', 'done', 'also'),
  fc.uniqueArray(fc.constantFrom('tool', 'done', 'also')),
);
const delta: fc.Arbitrary<NodeDelta> = fc
  .record(
    {
      n: fc.constantFrom('reason', 'tool', 'end'),
      w: fc.dictionary(fc.constantFrom('messages', 'count', 'z'), json),
      o: json,
      a: fc.array(json, { maxLength: 3 }),
      r: reasonRoute,
    },
    { requiredKeys: ['n'] },
  )
  .map((d) => {
    if (d.n !== 'reason') delete d.r;
    return d as NodeDelta;
  });
const ids = fc.array(fc.uuid(), { minLength: 1, maxLength: 2 });
const step: fc.Arbitrary<StepEntry> = fc.record(
  { deltas: fc.array(delta, { minLength: 1, maxLength: 3 }), c: ids, z: ids, f: ids },
  { requiredKeys: ['deltas'] },
);

test('every step entry decodes to what was encoded (outputs of null, route lists, contracts, artifacts)', () => {
  fc.assert(
    fc.property(step, (entry) => {
      // JSON drops `-0` signs and undefined members; compare with what JSON itself round-trips.
      const expected = JSON.parse(JSON.stringify(entry)) as JournalEntry;
      assert.deepEqual(decodeEntry(graph, encodeEntry(graph, entry)), expected);
    }),
    { numRuns: 300 },
  );
});

test('the one-node row text is exactly the JSON of the general delta encoding', () => {
  fc.assert(
    fc.property(delta, (d) => {
      const t = tables(graph);
      assert.equal(encodeDeltaText(graph, t, d), JSON.stringify(encodeDelta(graph, t, d)));
    }),
    { numRuns: 500 },
  );
  const t = tables(graph);
  const odd = [
    { n: 'tool', w: { count: undefined, z: 1 } },
    { n: 'tool', w: {} },
    { n: 'tool', a: null },
    { n: 'tool', o: undefined, a: [] },
    { n: 'reason', r: [] },
  ] as unknown as NodeDelta[];
  for (const d of odd) assert.equal(encodeDeltaText(graph, t, d), JSON.stringify(encodeDelta(graph, t, d)));
});

test('a one-node step is a bare array naming node, channels and routes by index', () => {
  const body = encodeEntry(graph, { deltas: [{ n: 'reason', w: { messages: 'hi' }, r: 'tool' }] });
  // nodes end/reason/tool, channels count/messages/z, routes of reason also/done/tool.
  assert.equal(body, '[1,[1,"hi"],2]');
  assert.equal(encodeEntry(graph, { deltas: [{ n: 'tool', o: null }] }), '[2,null,null,[null]]');
});

test('entries other than steps stay readable objects', () => {
  const t: JournalEntry = { k: 't', c: 'c1', s: 'COMPLETED', by: 'resume' };
  assert.equal(encodeEntry(graph, t), JSON.stringify(t));
  assert.deepEqual(decodeEntry(graph, JSON.stringify(t)), t);
});

test('a row that does not fit the graph is JOURNAL_CORRUPT, not a wrong state', () => {
  for (const body of ['[7,[0,1]]', '[1,[9,1]]', '[1,null,5]', '{"m":3}', '"x"']) {
    assert.throws(() => decodeEntry(graph, body), { code: 'JOURNAL_CORRUPT' }, body);
  }
  assert.throws(() => encodeEntry(graph, { deltas: [{ n: 'tool', r: 'nowhere' }] }), {
    code: 'JOURNAL_CORRUPT',
  });
});
