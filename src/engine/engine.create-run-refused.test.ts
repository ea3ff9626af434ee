/**
 * createRun issues a new graph's insert and the run's insert together (one round trip where the store
 * pipelines): when the run's insert is refused, that refusal is createRun's error on both stores —
 * not, on PostgreSQL, the error of the graph's type rows issued after it into the transaction the
 * refusal aborted (`25P02`, which no caller can act on).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachStore } from '../testing/each-store.ts';
import { createEngine } from './create-engine.ts';
import type { GraphSpec, NodeType } from './engine.ts';

const step: NodeType<null> = { type: 'refused_step', execute: () => ({ kind: 'ok' }) };

const graph = (label: string): GraphSpec => ({
  entry: 'a',
  nodes: [
    { id: 'a', type: 'refused_step', config: { label } as never },
    { id: 'end', type: 'terminal' },
  ],
  connectors: [{ from: 'a', to: 'end' }],
});

describeEachStore('engine: a refused run insert is createRun’s error', (factory) => {
  test('a run of a new graph whose engine_runs insert is refused fails with that refusal (CONFLICT)', async () =>
    factory.withStore(async ({ store }) => {
      const engine = createEngine(store, { fanOut: false });
      engine.register(step as NodeType<never>);
      try {
        await engine.createRun(graph('first'));
        // A constraint that refuses the next queued run's insert.
        await store.run('CREATE UNIQUE INDEX one_queued_run ON engine_runs (status)');
        const err = await engine.createRun(graph('second')).then(
          () => null,
          (e: { code?: string; message?: string }) => e,
        );
        assert.ok(err, 'the run was refused');
        assert.equal(err.code, 'CONFLICT', `refused with: ${err.code}: ${err.message}`);
        const graphs = await store.get<{ n: number }>('SELECT COUNT(*) AS n FROM engine_graphs');
        assert.equal(Number(graphs!.n), 1, 'the second graph rolled back with its run');
      } finally {
        await engine.close();
      }
    }));
});
