import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { describeEachStore } from '../testing/each-store.ts';
import { registerKit } from '../testing/engine-kit.ts';
import { createEngine } from './create-engine.ts';
import type { GraphSpec, NodeType } from './engine.ts';
import { compileGraph } from './graph/compile.ts';
import { decodeEntry } from './journal/codec.ts';

/** count (value) and messages (append) both change every step; `sum` is rewritten every step. */
function graph(limit: number): GraphSpec {
  return {
    entry: 'n',
    channels: {
      count: { reducer: 'value', default: 0 },
      sum: { reducer: 'value', default: 0 },
      messages: { reducer: 'append' },
    },
    nodes: [
      { id: 'n', type: 'mixed', config: { limit } },
      { id: 'end', type: 'terminal' },
    ],
    connectors: [
      { from: 'n', to: 'n', route: 'again' },
      { from: 'n', to: 'end', route: 'done' },
    ],
  };
}

const mixed: NodeType<{ limit: number }> = {
  type: 'mixed',
  execute(ctx) {
    const n = ((ctx.state.count as number) ?? 0) + 1;
    return {
      kind: 'ok',
      writes: { count: n, sum: ((ctx.state.sum as number) ?? 0) + n, messages: `m${n}` },
      output: { n },
      route: n < ctx.config.limit ? 'again' : 'done',
    };
  },
};

describeEachStore('engine journal', (factory) => {
  test('a journal row holds one step’s delta: rows do not grow with the history', async () => {
    const { store, dispose } = await factory.open();
    try {
      const engine = createEngine(store);
      engine.register(mixed as NodeType<never>);
      const out = await engine.start(graph(120));
      assert.equal(out.status, 'completed');
      const rows = await store.all<{ body: string }>('SELECT body FROM engine_journal ORDER BY jid');
      assert.equal(rows.length, 120);
      // Names are indexes into the graph's sorted nodes, channels and routes: node `n` is 1 (after
      // `end`), channels count/messages/sum are 0/1/2, route `again` is 0; the output is wrapped.
      assert.equal(rows[9]!.body, '[1,[0,10,2,55,1,"m10"],0,[{"n":10}]]');
      const g = compileGraph(graph(120), 'h');
      assert.deepEqual(decodeEntry(g, rows[9]!.body), {
        deltas: [{ n: 'n', w: { count: 10, sum: 55, messages: 'm10' }, o: { n: 10 }, r: 'again' }],
      });
      // Step 10 and step 110 differ only in the digits of their numbers.
      assert.ok(rows[109]!.body.length - rows[9]!.body.length <= 6);
      // `messages` appends: reading the run reads every row anyway, so no snapshot is written at step 100.
      const snaps = await store.get<{ n: number }>('SELECT COUNT(*) AS n FROM engine_snapshots');
      assert.equal(Number(snaps?.n), 0);
      const reader = createEngine(store);
      reader.register(mixed as NodeType<never>);
      const run = await reader.getRun(out.run_id);
      assert.deepEqual([run.step, run.state.count, run.state.sum], [120, 120, 7260]);
      assert.equal((run.state.messages as string[]).length, 120);
    } finally {
      await dispose();
    }
  });

  test('the state read back through snapshots + journal equals the state the run computed, for any snapshot interval', async () => {
    const { store, dispose } = await factory.open();
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 1, max: 9 }),
          fc.integer({ min: 1, max: 30 }),
          async (every, limit) => {
            const engine = createEngine(store, { snapshotEvery: every });
            engine.register(mixed as NodeType<never>);
            registerKit(engine);
            const out = await engine.start(graph(limit));
            const reader = createEngine(store, { snapshotEvery: every });
            reader.register(mixed as NodeType<never>);
            const run = await reader.getRun(out.run_id);
            assert.equal(run.step, limit);
            assert.equal(run.state.count, limit);
            assert.equal(run.state.sum, (limit * (limit + 1)) / 2);
            assert.deepEqual(
              run.state.messages,
              Array.from({ length: limit }, (_, i) => `m${i + 1}`),
            );
            assert.deepEqual(run.outputs.n, { n: limit });
          },
        ),
        { numRuns: 12 },
      );
    } finally {
      await dispose();
    }
  });
});
