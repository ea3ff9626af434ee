/** Each claim of a run is an attempt recorded with the process that took it (worker_id, host, pid). */
import assert from 'node:assert/strict';
import { hostname } from 'node:os';
import { test } from 'node:test';
import { describeEachStore } from '../testing/each-store.ts';
import { humanGraph, registerKit } from '../testing/engine-kit.ts';
import { createEngine } from './create-engine.ts';
import { runAttempts } from './run/attempts.ts';

describeEachStore('run attempts', (factory) => {
  test('a claim, a takeover after the lease expired and a resume are each an attempt naming its process', async () =>
    factory.withStore(async ({ store }) => {
      const a = createEngine(store, { fanOut: false, owner: 'proc-a' });
      const b = createEngine(store, { fanOut: false, owner: 'proc-b' });
      registerKit(a);
      registerKit(b);
      try {
        const { run_id } = await a.createRun(humanGraph);
        assert.deepEqual(await runAttempts(store, run_id), [], 'created, not yet claimed');
        // proc-a claims it and dies holding it.
        await store.run(
          `UPDATE engine_runs SET status = 'running', lease_owner = 'proc-a', lease_expires_at = 1, event_epoch = 1 WHERE run_id = ?`,
          [run_id],
        );
        const waiting = await b.claimNext();
        assert.equal(waiting?.status, 'waiting');
        const resumed = await a.resume(run_id, waiting!.waiting[0]!.contract_id, { approved: true });
        assert.equal(resumed.status, 'completed');
        const attempts = await runAttempts(store, run_id);
        assert.deepEqual(
          attempts.map((t) => [t.worker_id, t.host, t.pid]),
          [
            ['proc-b', hostname(), process.pid],
            ['proc-a', hostname(), process.pid],
          ],
        );
        assert.ok(attempts[0]!.attempt < attempts[1]!.attempt);
      } finally {
        await a.close();
        await b.close();
      }
    }));
});
