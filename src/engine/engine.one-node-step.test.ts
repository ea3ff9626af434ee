import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { describeEachStore } from '../testing/each-store.ts';
import { createEngine } from './create-engine.ts';
import type { GraphSpec, Json, NodeResult, NodeType } from './engine.ts';
import { compileGraph } from './graph/compile.ts';
import { encodeEntry } from './journal/codec.ts';
import { applyStep, initialState, type NodeDelta } from './run/state.ts';

const spec: GraphSpec = {
  entry: 'n',
  channels: {
    log: { reducer: 'append' },
    v: { reducer: 'value' },
    w: { reducer: 'value', default: 0 },
  },
  nodes: [
    { id: 'n', type: 'scripted' },
    { id: 'end', type: 'terminal' },
  ],
  connectors: [
    { from: 'n', to: 'n', route: 'again' },
    { from: 'n', to: 'end', route: 'done' },
  ],
};

/** A node's result: writes (a value may be undefined), output, attachments. */
type Step = { w?: Record<string, Json | undefined>; o?: Json; a?: Json[] };

const value = fc.option(fc.jsonValue() as fc.Arbitrary<Json>, { nil: undefined });
const step: fc.Arbitrary<Step> = fc.record(
  {
    w: fc.dictionary(fc.constantFrom('log', 'v', 'w'), value, { maxKeys: 3 }),
    o: fc.jsonValue() as fc.Arbitrary<Json>,
    a: fc.option(fc.array(fc.jsonValue() as fc.Arbitrary<Json>, { maxLength: 2 }), { nil: undefined }),
  },
  { requiredKeys: [] },
);

describeEachStore('engine one-node steps', (factory) => {
  test('a step of one node journals the general encoding of its delta and leaves the state applyStep makes (undefined writes, append channels, outputs)', async () => {
    const { store, dispose } = await factory.open();
    try {
      const engine = createEngine(store);
      let script: Step[] = [];
      const scripted: NodeType<null> = {
        type: 'scripted',
        execute: (ctx) => {
          const s = script[ctx.step - 1]!;
          const result: NodeResult = { kind: 'ok', route: ctx.step < script.length ? 'again' : 'done' };
          if (s.w !== undefined) result.writes = s.w as Record<string, Json>;
          if (s.o !== undefined) result.output = s.o;
          if (s.a !== undefined) result.attachments = s.a;
          return result;
        },
      };
      engine.register(scripted as NodeType<never>);
      const graph = compileGraph(spec, 'h');
      await fc.assert(
        fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 6 }), async (steps) => {
          script = steps;
          const out = await engine.start(spec);
          assert.equal(out.status, 'completed');
          const pk = await store.get<{ run_pk: number }>('SELECT run_pk FROM engine_runs WHERE run_id = ?', [
            out.run_id,
          ]);
          const rows = await store.all<{ body: string }>(
            'SELECT body FROM engine_journal WHERE jid > ? AND jid < ? ORDER BY jid',
            [pk!.run_pk * 2 ** 24, (pk!.run_pk + 1) * 2 ** 24],
          );
          const expected = initialState(graph);
          steps.forEach((s, i) => {
            const d: NodeDelta = { n: 'n', r: i + 1 < steps.length ? 'again' : 'done' };
            if (s.w !== undefined && Object.keys(s.w).length > 0) d.w = s.w as Record<string, Json>;
            if (s.o !== undefined) d.o = s.o;
            if (s.a !== undefined) d.a = s.a;
            assert.equal(rows[i]?.body, encodeEntry(graph, { deltas: [d] }), `row of step ${i + 1}`);
            applyStep(graph, expected, [d]);
          });
          assert.deepStrictEqual(out.final?.state, expected.channels);
        }),
        { numRuns: 25 },
      );
    } finally {
      await dispose();
    }
  });
});
