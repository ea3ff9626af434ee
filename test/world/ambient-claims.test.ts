/**
 * What a process knows of an attempt's ambient calls holds for one claim of the attempt's run
 * (`TurnContexts.ambientCalls`, keyed by the node's `ctx.signal`): a later claim reads the calls back,
 * since another process may have made some while this one did not hold the run; within a claim they
 * are read once; a new attempt's first claim reads nothing.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { getAttempt } from '../../src/runtimes/world/index.ts';
import { type AttemptInput, TurnContexts } from '../../src/runtimes/world/turn-context.ts';
import { describeEachStore } from '../../src/testing/each-store.ts';
import { recordingTransactions } from '../../src/testing/recording-store.ts';
import { startParkKit } from '../../src/testing/world-kit.ts';
import { finalPatch } from './helpers.ts';

describeEachStore('an attempt’s ambient calls, per claim of its run', (factory) => {
  test('read back once per claim; a new attempt’s first claim reads nothing', async () => {
    await factory.withStore(async ({ store: raw }) => {
      const { store, reads } = recordingTransactions(raw);
      const kit = await startParkKit(raw, { script: { rules: [], default: finalPatch('Bob waits.') } });
      try {
        // A turn of the park: the weather and the PA once, Bob's inbox before his workflow.
        await kit.world('park');
        const r = await kit.runtime.runTurn({ world_slug: 'park' });
        assert.equal(r.status, 'committed', JSON.stringify(r.failure));
        const a = await getAttempt(raw, { attempt_id: r.attempt_id });
        const attempt: AttemptInput = {
          attempt_id: a.attempt_id,
          world_slug: 'park',
          attempted_turn: a.attempted_turn,
          simulation_time: null,
          scenario_hash: kit.bundle.scenario_hash,
        };
        const readsBack = () => reads.filter((sql) => /FROM source_invocations/.test(sql)).length;
        const [first, second] = [new AbortController().signal, new AbortController().signal];

        // A process continuing the attempt: its first claim reads the calls back, once.
        const continuing = new TurnContexts(store);
        const t = await continuing.get(attempt);
        const before = readsBack();
        assert.equal((await continuing.ambientCalls(t, first)).size, 3);
        assert.equal((await continuing.ambientCalls(t, first)).size, 3);
        assert.equal(readsBack(), before + 1, 'one read in a claim');
        await continuing.ambientCalls(t, second);
        assert.equal(readsBack(), before + 2, 'a new claim reads again');

        // A new attempt (as `start` makes it): its first claim knows it made no call, reading nothing;
        // a later claim reads what was made meanwhile.
        const fresh = new TurnContexts(store);
        const f = await fresh.get(attempt, undefined, true);
        assert.equal((await fresh.ambientCalls(f, first)).size, 0);
        assert.equal(readsBack(), before + 2);
        assert.equal((await fresh.ambientCalls(f, second)).size, 3);
        assert.equal(readsBack(), before + 3);
      } finally {
        await kit.close();
      }
    });
  });
});
