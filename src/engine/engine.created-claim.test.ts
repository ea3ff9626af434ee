/**
 * A run's first claim by the engine that created it reads none of its journal, snapshots or
 * contracts (nothing can have written them since): its state is the input it was created with.
 * Another engine's claim, or a later claim, reads them as before. A frozen graph is hashed once.
 * A claim its caller asks deferred commits without waiting for the disk; any other waits.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachStore } from '../testing/each-store.ts';
import { registerKit } from '../testing/engine-kit.ts';
import { recordingTransactions } from '../testing/recording-store.ts';
import { createEngine } from './create-engine.ts';
import type { GraphSpec } from './engine.ts';

const GRAPH: GraphSpec = {
  entry: 'a',
  channels: { messages: { reducer: 'append' }, seed: { reducer: 'value' } },
  nodes: [
    { id: 'a', type: 'append', config: { text: 'one' } },
    { id: 'b', type: 'context' },
    { id: 'end', type: 'terminal' },
  ],
  connectors: [
    { from: 'a', to: 'b' },
    { from: 'b', to: 'end' },
  ],
};

const runReads = (reads: string[]) =>
  reads.filter((q) => /FROM engine_(journal|snapshots|contracts)\b/.test(q)).length;

describeEachStore('engine: a run claimed by the engine that created it', (factory) => {
  test('its first claim reads no journal, snapshot or contract, and runs from its input', async () =>
    factory.withStore(async ({ store: raw }) => {
      const { store, reads } = recordingTransactions(raw);
      const here = createEngine(store, { fanOut: false });
      const elsewhere = createEngine(store, { fanOut: false });
      registerKit(here);
      registerKit(elsewhere);
      try {
        const input = { messages: 'zero', seed: { n: 1 } };
        const before = runReads(reads);
        const started = await here.start(GRAPH, { input });
        assert.equal(started.status, 'completed');
        assert.equal(runReads(reads), before, 'no read of the run at its first claim here');
        const state = (await here.getRun(started.run_id)).state;
        assert.deepEqual(state.messages, ['zero', 'one']);
        assert.deepEqual(state.seed, { n: 1 });

        // The same run created by one engine and claimed by another: read, as any claim after a crash.
        const { run_id } = await here.createRun(GRAPH, { input });
        const mid = runReads(reads);
        const other = await elsewhere.continueRun(run_id);
        assert.equal(other.status, 'completed');
        assert.ok(runReads(reads) > mid, 'a claim by another engine reads the run');
        assert.deepEqual((await here.getRun(run_id)).state, (await here.getRun(started.run_id)).state);
      } finally {
        await here.close();
        await elsewhere.close();
      }
    }));

  test('a claim asked deferred commits deferred; a claim asked nothing waits for the disk', async () =>
    factory.withStore(async ({ store: raw }) => {
      const { store, recorded } = recordingTransactions(raw);
      const engine = createEngine(store, { fanOut: false });
      registerKit(engine);
      try {
        const claims = () =>
          recorded.filter((t) =>
            t.sqls.some((q) => q.trimStart().startsWith("UPDATE engine_runs SET status = 'running'")),
          );
        const a = await engine.createRun(GRAPH, { reserve: true });
        assert.equal((await engine.continueRun(a.run_id, { durability: 'deferred' })).status, 'completed');
        const b = await engine.createRun(GRAPH, { reserve: true });
        assert.equal((await engine.continueRun(b.run_id)).status, 'completed');
        assert.deepEqual(
          claims().map((t) => t.durability),
          ['deferred', 'immediate'],
        );
      } finally {
        await engine.close();
      }
    }));
});
