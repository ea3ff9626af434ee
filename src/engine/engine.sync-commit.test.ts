/**
 * A step of synchronous nodes commits through the store's synchronous transaction where it has one
 * (no promise per step), and a fault there behaves as in the awaited path: the step rolls back, the
 * run stays reclaimable, and a worker finishing it later finds nothing of the failed step.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Store } from '../store/store.ts';
import { describeEachStore } from '../testing/each-store.ts';
import { FaultyStore } from '../testing/faulty-store.ts';
import { createEngine } from './create-engine.ts';
import type { GraphSpec, NodeType } from './engine.ts';

const STEPS = 6;

const ping: NodeType<null> = {
  type: 'sync_ping',
  execute: (ctx) =>
    ctx.step >= STEPS
      ? { kind: 'ok', route: 'done' }
      : { kind: 'ok', writes: { log: ctx.step }, route: 'again' },
};

const graph: GraphSpec = {
  entry: 'ping',
  channels: { log: { reducer: 'append' }, last: { reducer: 'value' } },
  nodes: [
    { id: 'ping', type: 'sync_ping' },
    { id: 'end', type: 'terminal' },
  ],
  connectors: [
    { from: 'ping', to: 'ping', route: 'again' },
    { from: 'ping', to: 'end', route: 'done' },
  ],
};

/** Counts the synchronous transactions `store` starts (it keeps offering them). */
function countSync(store: Store): { calls: number } {
  const seen = { calls: 0 };
  const original = store.transactionSync?.bind(store);
  if (original)
    Object.assign(store, {
      transactionSync: (...args: Parameters<typeof original>) => {
        seen.calls++;
        return original(...args);
      },
    });
  return seen;
}

describeEachStore('engine: synchronous step commits', (factory) => {
  test('steps of synchronous nodes commit through transactionSync where the store offers it', async () => {
    await factory.withStore(async ({ store }) => {
      const seen = countSync(store);
      const engine = createEngine(store, { fanOut: false });
      engine.register(ping as NodeType<never>);
      const out = await engine.start(graph);
      assert.equal(out.status, 'completed', JSON.stringify(out.error));
      assert.deepEqual((await engine.getRun(out.run_id)).state.log, [1, 2, 3, 4, 5]);
      // Without it (PostgreSQL) the same steps took the awaited path, checked by the run completing.
      if (store.transactionSync) assert.ok(seen.calls >= STEPS, `${seen.calls} synchronous commits`);
      else assert.equal(seen.calls, 0);
    });
  });

  test('a statement failing inside a step commit rolls the step back and leaves the run reclaimable', async () => {
    await factory.withStore(async ({ store }) => {
      const seen = countSync(store);
      const faulty = new FaultyStore(store);
      const a = createEngine(faulty, { owner: 'worker-a', fanOut: false });
      const b = createEngine(store, { owner: 'worker-b', fanOut: false });
      for (const e of [a, b]) e.register(ping as NodeType<never>);
      const { run_id } = await b.createRun(graph);
      // The last step's commit appends its journal row, then completes the run: fail the second,
      // so the first (already run in the same transaction) must not survive.
      faulty.arm({ matching: /^UPDATE engine_runs SET status = \?/ });
      const before = seen.calls;
      await assert.rejects(a.continueRun(run_id), { code: 'STORE_UNAVAILABLE', retryable: true });
      faulty.disarm();
      assert.equal(faulty.injected.length, 1, faulty.injected.join('; '));
      if (store.transactionSync) assert.ok(seen.calls > before, 'the failing commit was synchronous');
      const left = await b.getRun(run_id);
      assert.equal(left.status, 'running');
      assert.equal(left.step, STEPS - 1);
      // A surviving journal row would fence worker B's retry of that step out (its seq is taken).
      const out = await b.continueRun(run_id);
      assert.equal(out.status, 'completed', JSON.stringify(out.error));
      const done = await b.getRun(run_id);
      assert.equal(done.step, STEPS);
      assert.deepEqual(done.state.log, [1, 2, 3, 4, 5]);
    });
  });
});
