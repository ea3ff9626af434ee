import assert from 'node:assert/strict';
import { test } from 'node:test';
import { jsonSize } from '../core/budget.ts';
import { describeEachStore } from '../testing/each-store.ts';
import { actLoopGraph, CountingExecutor, registerKit } from '../testing/engine-kit.ts';
import { createEngine } from './create-engine.ts';
import type { GraphSpec } from './engine.ts';

const STEPS = 6;

// actLoopGraph plus a large `notes` channel written at the start.
const graph: GraphSpec = {
  ...actLoopGraph(STEPS),
  channels: { ...actLoopGraph(STEPS).channels, notes: { reducer: 'value' } },
};

describeEachStore('getRun budget', (factory) => {
  test('max_chars bounds getRun: what fits is kept verbatim, what is cut is named in omitted', async () => {
    const { store, dispose } = await factory.open();
    try {
      const engine = createEngine(store, { actions: new CountingExecutor() });
      registerKit(engine);
      const out = await engine.start(graph, { input: { notes: 'x'.repeat(5_000) } });
      assert.equal(out.status, 'completed');
      const whole = await engine.getRun(out.run_id);
      assert.equal(whole.truncated, false);
      assert.equal(whole.omitted, undefined);
      assert.equal(whole.contracts.length, STEPS);
      const size = jsonSize(whole);
      assert.deepEqual(
        await engine.getRun(out.run_id, { max_chars: size }),
        whole,
        'a budget that fits changes nothing',
      );

      const cut = await engine.getRun(out.run_id, { max_chars: 3_000 });
      assert.ok(jsonSize(cut) <= 3_000, `${jsonSize(cut)} chars`);
      assert.equal(cut.truncated, true);
      assert.equal(cut.status, 'completed');
      assert.equal(cut.step, whole.step);
      assert.deepEqual(cut.omitted?.state, ['notes'], 'the large channel is the one cut');
      assert.equal(cut.state.count, STEPS, 'small channels are kept');
      assert.equal(cut.omitted?.contracts, whole.contracts.length - cut.contracts.length);
      assert.ok(cut.contracts.length > 0, 'one large channel does not push out everything else');
      const wholeById = new Map(whole.contracts.map((c) => [c.contract_id, c]));
      for (const c of cut.contracts)
        assert.deepEqual(c, wholeById.get(c.contract_id), 'kept contracts are whole');
      assert.deepEqual(
        cut.completed_executions.map((c) => c.contract_id),
        cut.contracts.filter((c) => c.status === 'COMPLETED').map((c) => c.contract_id),
      );
      for (const [k, v] of Object.entries(cut.outputs)) assert.deepEqual(v, whole.outputs[k]);

      await assert.rejects(engine.getRun(out.run_id, { max_chars: 50 }), { code: 'BUDGET_TOO_SMALL' });
      await assert.rejects(engine.getRun(out.run_id, { max_chars: -1 }), { code: 'INVALID_INPUT' });
    } finally {
      await dispose();
    }
  });
});
