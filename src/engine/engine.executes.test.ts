/**
 * An engine that does not execute (`executes: false`, an API process whose runs execute on workers)
 * creates and answers runs, leaves them to whichever engine claims them, and waits for them to stop.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachStore } from '../testing/each-store.ts';
import { appendGraph, humanGraph, registerKit } from '../testing/engine-kit.ts';
import { waitUntil } from '../testing/wait.ts';
import { createEngine } from './create-engine.ts';

describeEachStore('an engine that does not execute', (factory) => {
  test('start leaves the run queued for another engine and resolves with its outcome once it stopped', async () =>
    factory.withStore(async ({ store }) => {
      const api = createEngine(store, { executes: false });
      const worker = createEngine(store);
      registerKit(api);
      registerKit(worker);
      try {
        assert.equal(api.executes, false);
        const started = api.start(appendGraph);
        let settled = false;
        void started.then(() => {
          settled = true;
        });
        await new Promise((r) => setTimeout(r, 400));
        assert.equal(settled, false, 'nothing executes it yet');
        const queued = await store.get<{ status: string; n: number }>(
          "SELECT status, (SELECT COUNT(*) FROM engine_runs) AS n FROM engine_runs WHERE status = 'queued'",
        );
        assert.equal(queued?.status, 'queued');
        assert.equal(await api.claimNext(), null, 'it claims nothing');
        const claimed = await worker.claimNext();
        assert.equal(claimed?.status, 'completed');
        const outcome = await started;
        assert.equal(outcome.run_id, claimed?.run_id);
        assert.equal(outcome.status, 'completed');
      } finally {
        await api.close();
        await worker.close();
      }
    }));

  test('resume answers the contract and leaves the run to another engine, at once', async () =>
    factory.withStore(async ({ store }) => {
      const api = createEngine(store, { executes: false, leaseMs: 600_000 });
      const worker = createEngine(store, { leaseMs: 600_000 });
      registerKit(api);
      registerKit(worker);
      try {
        const { run_id } = await api.createRun(humanGraph);
        const waiting = await worker.claimNext();
        assert.equal(waiting?.status, 'waiting');
        const resumed = api.resume(run_id, waiting!.waiting[0]!.contract_id, { approved: true });
        // The answer gave its lease up: claimable at once, not after the 10-minute lease.
        let after: Awaited<ReturnType<typeof worker.claimNext>> = null;
        await waitUntil('the answered run claimable', async () => (after = await worker.claimNext()), {
          timeoutMs: 5_000,
          intervalMs: 20,
        });
        const claimed = after as Awaited<ReturnType<typeof worker.claimNext>>;
        assert.equal(claimed?.run_id, run_id);
        assert.equal(claimed?.status, 'completed');
        assert.equal((await resumed).status, 'completed');
      } finally {
        await api.close();
        await worker.close();
      }
    }));
});
