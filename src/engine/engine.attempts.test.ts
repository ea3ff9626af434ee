/** Each claim of a run is an attempt recorded with the process that took it (worker_id, host, pid). */
import assert from 'node:assert/strict';
import { hostname } from 'node:os';
import { test } from 'node:test';
import type { Transaction } from '../store/store.ts';
import { describeEachStore } from '../testing/each-store.ts';
import { humanGraph, registerKit } from '../testing/engine-kit.ts';
import { createEngine } from './create-engine.ts';
import { runAttempts } from './run/attempts.ts';
import { claimRun } from './run/runs.ts';

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

  test('a claim records its attempt with a statement issued with the claim; a claim refused records none', async () =>
    factory.withStore(async ({ store }) => {
      const a = createEngine(store, { fanOut: false, owner: 'proc-a' });
      registerKit(a);
      try {
        const { run_id } = await a.createRun(humanGraph);
        // Reserved for another process that holds it: refused, nothing recorded.
        await store.run(
          `UPDATE engine_runs SET lease_owner = 'proc-b', lease_expires_at = ? WHERE run_id = ?`,
          [Date.now() + 60_000, run_id],
        );
        assert.equal(await claimRun(store, run_id, 'proc-a', Date.now(), 30_000), undefined);
        assert.deepEqual(await runAttempts(store, run_id), []);
        await store.run(`UPDATE engine_runs SET lease_owner = NULL, lease_expires_at = 0 WHERE run_id = ?`, [
          run_id,
        ]);
        // Claimed: the attempt's insert leaves before the claim has answered.
        let inFlight = 0;
        const atAttempt: number[] = [];
        const counting = new Proxy(store, {
          get(target, key) {
            if (key !== 'transaction') return Reflect.get(target, key);
            return (fn: (tx: Transaction) => Promise<unknown>, options?: never) =>
              target.transaction(
                (tx) =>
                  fn(
                    new Proxy(tx, {
                      get(t, k) {
                        const v = Reflect.get(t, k);
                        if (k !== 'run' && k !== 'get') return typeof v === 'function' ? v.bind(t) : v;
                        return (sql: string, params?: never) => {
                          if (sql.includes('engine_run_attempts')) atAttempt.push(inFlight);
                          inFlight++;
                          const p = (v as (s: string, p?: never) => Promise<unknown>).call(t, sql, params);
                          const done = () => {
                            inFlight--;
                          };
                          p.then(done, done);
                          return p;
                        };
                      },
                    }),
                  ),
                options,
              );
          },
        });
        const row = await claimRun(counting, run_id, 'proc-a', Date.now(), 30_000);
        assert.equal(row?.lease_owner, 'proc-a');
        assert.deepEqual(atAttempt, [1], 'issued while the claim was in flight');
        const attempts = await runAttempts(store, run_id);
        assert.deepEqual(
          attempts.map((t) => [t.attempt, t.worker_id]),
          [[row!.event_epoch, 'proc-a']],
        );
        // A run that ended: refused, and no attempt added.
        await store.run(`UPDATE engine_runs SET status = 'completed', lease_owner = NULL WHERE run_id = ?`, [
          run_id,
        ]);
        assert.equal(await claimRun(store, run_id, 'proc-a', Date.now(), 30_000), undefined);
        assert.equal((await runAttempts(store, run_id)).length, 1);
      } finally {
        await a.close();
      }
    }));
});
