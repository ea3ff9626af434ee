import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachStore } from '../testing/each-store.ts';
import { CountingExecutor, registerKit, toolLoopGraph } from '../testing/engine-kit.ts';
import { createEngine } from './create-engine.ts';

describeEachStore('a run outcome’s final state', (factory) => {
  test('a run that stopped in this process carries its channels and contracts, as getRun reads them back', async () => {
    const { store, dispose } = await factory.open();
    try {
      const engine = createEngine(store, { actions: new CountingExecutor() });
      registerKit(engine);
      const out = await engine.start(toolLoopGraph);
      assert.equal(out.status, 'completed');
      assert.ok(out.final, 'the executing process hands back what it holds');
      const run = await engine.getRun(out.run_id);
      assert.deepEqual(out.final.state, run.state);
      assert.deepEqual(out.final.contracts, run.contracts);
    } finally {
      await dispose();
    }
  });
});
