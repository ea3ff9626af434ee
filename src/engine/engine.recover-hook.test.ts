import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Store } from '../store/store.ts';
import { describeEachStore } from '../testing/each-store.ts';
import { actLoopGraph, registerKit } from '../testing/engine-kit.ts';
import { waitUntil } from '../testing/wait.ts';
import { createEngine } from './create-engine.ts';
import type { ActionExecutor, ActionOutcome, Engine } from './engine.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The executor's own durable record of a call, keyed by contract id (here a row of `noema_meta`). */
const recordKey = (contract_id: string) => `test-outcome:${contract_id}`;

/**
 * An engine whose executor performs the call, records its outcome durably, and then never returns:
 * the process "dies" between a successful call and the engine's COMPLETED write.
 */
async function crashAfterTheCall(store: Store, calls: string[]): Promise<string> {
  const dying = createEngine(store, {
    leaseMs: 60,
    actions: {
      async execute(contract) {
        calls.push(contract.contract_id);
        await store.run('INSERT INTO noema_meta (key, value) VALUES (?, ?)', [
          recordKey(contract.contract_id),
          JSON.stringify({ ok: true, result: { sum: 5 } }),
        ]);
        return new Promise(() => {});
      },
    },
  });
  registerKit(dying);
  const { run_id } = await dying.createRun(actLoopGraph(2));
  void dying.continueRun(run_id);
  await waitUntil('the first call happened', () => calls.length > 0);
  // The process dies: its lease simply stops being renewed.
  await store.run("UPDATE engine_runs SET lease_owner = 'dead', lease_expires_at = 0");
  return run_id;
}

async function claimSoon(engine: Engine) {
  // The hung engine's heartbeat may hold the row lock for an instant (SKIP LOCKED skips it).
  let out = await engine.claimNext();
  for (let i = 0; !out && i < 100; i++) {
    await sleep(10);
    out = await engine.claimNext();
  }
  return out;
}

describeEachStore('engine recovery asks the executor how an interrupted call ended', (factory) => {
  test('a call recorded durably before the crash completes with its result on reclaim, not FAILED interrupted', async () => {
    await factory.withStore(async ({ store }) => {
      const calls: string[] = [];
      const run_id = await crashAfterTheCall(store, calls);
      const asked: string[] = [];
      const recovering: ActionExecutor = {
        async execute(contract) {
          calls.push(contract.contract_id);
          return { ok: true, result: 1 };
        },
        async recover(contract) {
          asked.push(contract.contract_id);
          const row = await store.get<{ value: string }>('SELECT value FROM noema_meta WHERE key = ?', [
            recordKey(contract.contract_id),
          ]);
          return row ? (JSON.parse(row.value) as ActionOutcome) : null;
        },
      };
      const next = createEngine(store, { actions: recovering });
      registerKit(next);
      const out = await claimSoon(next);
      assert.equal(out?.status, 'completed');
      const first = (await next.getRun(run_id)).contracts[0]!;
      assert.equal(asked[0], first.contract_id);
      assert.equal(first.status, 'COMPLETED');
      assert.deepEqual(first.result, { sum: 5 });
      assert.deepEqual(
        first.transitions.map((t) => `${t.to}@${t.actor}`),
        ['PENDING@node:act', 'RUNNING@node:act', 'COMPLETED@recovery'],
      );
      assert.equal(calls.filter((id) => id === first.contract_id).length, 1, 'the call was not repeated');
    });
  });

  test('an executor that does not know the outcome (null) leaves the interrupted rule: FAILED, not re-executed', async () => {
    await factory.withStore(async ({ store }) => {
      const calls: string[] = [];
      const run_id = await crashAfterTheCall(store, calls);
      const next = createEngine(store, {
        actions: {
          async execute(contract) {
            calls.push(contract.contract_id);
            return { ok: true, result: 1 };
          },
          recover: async () => null,
        },
      });
      registerKit(next);
      assert.equal((await claimSoon(next))?.status, 'completed');
      const first = (await next.getRun(run_id)).contracts[0]!;
      assert.equal(first.status, 'FAILED');
      assert.equal(first.error?.code, 'ACTION_INTERRUPTED');
      assert.equal(first.transitions.at(-1)?.actor, 'recovery');
      assert.equal(calls.filter((id) => id === first.contract_id).length, 1, 'the call was not repeated');
    });
  });
});
