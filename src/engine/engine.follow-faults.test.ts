/**
 * An engine that does not execute waits for a run another engine executes by reading the run's row.
 * A read the store refuses for a moment (a pool that cannot hand out a connection, a server
 * restarting) is tried again at the next poll while the run goes on elsewhere; an outage that lasts
 * past the run's lease is the wait's error.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachStore } from '../testing/each-store.ts';
import { appendGraph, registerKit } from '../testing/engine-kit.ts';
import { refusingReads } from '../testing/faulty-store.ts';
import { createEngine } from './create-engine.ts';

/** The follower's read of a run's row. */
const RUN_READ = /^SELECT \* FROM engine_runs WHERE run_id = \?$/;

describeEachStore('an engine that does not execute, when the store refuses a read', (factory) => {
  test('the wait for a run executed elsewhere outlives reads refused for a moment', async () =>
    factory.withStore(async ({ store }) => {
      let failures = 0;
      const refusing = refusingReads(store, 'get', RUN_READ, () => failures-- > 0);
      const api = createEngine(refusing.store, { executes: false });
      const worker = createEngine(store);
      registerKit(api);
      registerKit(worker);
      try {
        const { run_id } = await api.createRun(appendGraph);
        failures = 3; // the wait's first three reads of the run
        const waited = api.continueRun(run_id);
        const claimed = await worker.claimNext();
        assert.equal(claimed?.status, 'completed');
        const outcome = await waited;
        assert.equal(outcome.run_id, run_id);
        assert.equal(outcome.status, 'completed');
        assert.equal(refusing.refused(), 3, 'the reads were refused');
      } finally {
        await api.close();
        await worker.close();
      }
    }));

  test('an outage past the run lease is the wait’s error', async () =>
    factory.withStore(async ({ store }) => {
      let down = false;
      const refusing = refusingReads(store, 'get', RUN_READ, () => down);
      const api = createEngine(refusing.store, { executes: false, leaseMs: 400 });
      registerKit(api);
      try {
        const { run_id } = await api.createRun(appendGraph);
        down = true;
        const started = Date.now();
        await assert.rejects(api.continueRun(run_id), (err: { code?: string }) => {
          assert.equal(err.code, 'STORE_UNAVAILABLE');
          return true;
        });
        assert.ok(Date.now() - started >= 400, 'it waited out the lease first');
        assert.ok(refusing.refused() >= 2, 'the read was tried again');
      } finally {
        await api.close();
      }
    }));
});
