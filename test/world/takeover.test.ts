/**
 * A process that lost its lease on an attempt's run (another process took the run over) and later
 * takes it back must not trust what it knew of the attempt: the calls the other process made while
 * it held the run are in the store, not in this process's memory. Two runtimes on one store stand
 * for the two processes; a lease is lost as a paused process loses it, by another owner claiming it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isNoemaError } from '../../src/core/errors.ts';
import { createWorldRuntime, getWorld, type RunTurnResult } from '../../src/runtimes/world/index.ts';
import type { Store } from '../../src/store/store.ts';
import { describeEachStore } from '../../src/testing/each-store.ts';
import { startParkKit } from '../../src/testing/world-kit.ts';
import { antThenBobWorld, finalPatch } from './helpers.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits (bounded) until `ready` holds. */
async function until(what: string, ready: () => boolean): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!ready()) {
    assert.ok(Date.now() < deadline, `timed out waiting until ${what}`);
    await sleep(20);
  }
}

/** The run's lease taken by another owner that then died: its holder's next heartbeat finds it lost. */
async function loseLease(store: Store): Promise<void> {
  const r = await store.run(
    "UPDATE engine_runs SET lease_owner = 'another-process', lease_expires_at = 0 WHERE status = 'running'",
  );
  assert.equal(r.changes, 1, 'one running run');
}

/** `run` ends in ATTEMPT_IN_PROGRESS: its process lost the run. */
async function lostTheRun(run: Promise<RunTurnResult>): Promise<void> {
  await assert.rejects(run, (err) => isNoemaError(err) && err.code === 'ATTEMPT_IN_PROGRESS');
}

describeEachStore('world attempts taken over and back', (factory) => {
  test('a process taking an attempt back calls no ambient source the other process already called', async () => {
    await factory.withStore(async ({ store }) => {
      // The ant's and then Bob's first generations hang once: each process is stopped in one of them.
      const hang = (subject: string) => ({
        match: { subject },
        times: 1,
        reply: { hang: true, hang_after_chunks: 1, json: {} },
      });
      const kit = await startParkKit(store, {
        script: { rules: [hang('ant'), hang('bob')], default: finalPatch('Nothing happens.') },
        leaseMs: 600,
      });
      const b = createWorldRuntime(store, { env: kit.env, leaseMs: 600 });
      const asked = (subject: string) => () =>
        kit.model.requests.some((q) => q.headers['x-noema-subject'] === subject);
      const calls = (path: string) => kit.toys.requests.filter((r) => r.path === path).length;
      try {
        await antThenBobWorld(kit, 'w');
        // A runs the turn's ambient sources and stops in the ant's generation, losing the run.
        const first = kit.runtime.runTurn({ world_slug: 'w' });
        await until('the ant’s generation is asked', asked('ant'));
        await loseLease(store);
        await lostTheRun(first);
        // B takes over: the ant's generation again, Bob's inbox, and it stops in Bob's generation.
        const second = b.runTurn({ world_slug: 'w' });
        await until('Bob’s generation is asked', asked('bob'));
        assert.equal(calls('/inbox'), 1);
        await loseLease(store);
        await lostTheRun(second);
        // A takes the attempt back: Bob's inbox was called (by B) and is not called again.
        const third = await kit.runtime.runTurn({ world_slug: 'w' });
        assert.equal(third.status, 'committed', JSON.stringify(third.failure));
        assert.deepEqual(
          { weather: calls('/weather'), pa: calls('/announcement'), inbox: calls('/inbox') },
          { weather: 1, pa: 1, inbox: 1 },
        );
        assert.equal((await getWorld(store, { world_slug: 'w' })).head_turn, 1);
      } finally {
        await b.close();
        await kit.close();
      }
    });
  });
});
