/**
 * A generation that finished while its process still held the run, but whose step never committed
 * (the process lost the run between the two commits — as one killed there does), is not asked again
 * by the process that continues the attempt: its recorded output is reused. A process stands for
 * each side; the first loses its lease as a paused process does, to another owner claiming the run,
 * while the ant's generation is on the wire, and its heartbeat is too slow to notice before the
 * answer arrives — so the call finishes and the step's fenced commit is what fails.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isNoemaError } from '../../src/core/errors.ts';
import { createWorldRuntime, getWorld } from '../../src/runtimes/world/index.ts';
import { describeEachStore } from '../../src/testing/each-store.ts';
import { startParkKit } from '../../src/testing/world-kit.ts';
import { antThenBobWorld, count, finalPatch } from './helpers.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describeEachStore('a finished generation whose step did not commit', (factory) => {
  test('is reused by the process continuing the attempt, not asked again', async () => {
    await factory.withStore(async ({ store }) => {
      const kit = await startParkKit(store, {
        script: {
          rules: [
            {
              match: { subject: 'ant' },
              times: 1,
              reply: { delay_ms: 600, ...finalPatch('The ant rests.') },
            },
          ],
          default: finalPatch('Bob waits.'),
        },
        // A heartbeat every 20 s: the first process does not see its lease taken before the ant's
        // answer arrives, so the call finishes and the step's commit is refused.
        leaseMs: 60_000,
      });
      const continuing = createWorldRuntime(store, { env: kit.env, leaseMs: 60_000 });
      const asked = (subject: string) =>
        kit.model.requests.filter((q) => q.headers['x-noema-subject'] === subject).length;
      try {
        await antThenBobWorld(kit, 'w');
        const first = kit.runtime.runTurn({ world_slug: 'w' });
        const deadline = Date.now() + 20_000;
        while (asked('ant') === 0) {
          assert.ok(Date.now() < deadline, 'timed out waiting for the ant’s generation');
          await sleep(10);
        }
        // Taken while the answer is on its way; expired at once, so the continuing process claims it.
        const taken = await store.run(
          "UPDATE engine_runs SET lease_owner = 'another-process', lease_expires_at = 0 WHERE status = 'running'",
        );
        assert.equal(taken.changes, 1, 'one running run');
        await assert.rejects(first, (err) => isNoemaError(err) && err.code === 'ATTEMPT_IN_PROGRESS');
        const finished = await count(
          store,
          `SELECT COUNT(*) AS n FROM source_invocations WHERE invocation_kind = 'llm_generation'
             AND workflow_subject_entity_id = 'ant' AND status = 'succeeded'`,
        );
        assert.equal(finished, 1, 'the ant’s generation finished before its step was refused');

        const r = await continuing.runTurn({ world_slug: 'w' });
        assert.equal(r.status, 'committed', JSON.stringify(r.failure));
        assert.equal(asked('ant'), 1, 'the ant’s finished generation is not asked again');
        assert.equal(asked('bob'), 1);
        const world = await getWorld(store, { world_slug: 'w' });
        assert.equal(world.head_turn, 1);
        const narrations = await store.all<{ n: string }>(
          `SELECT source_invocation_id AS n FROM source_invocations WHERE invocation_kind = 'llm_generation'
             AND workflow_subject_entity_id = 'ant'`,
        );
        assert.equal(narrations.length, 1, 'one row for the ant’s generation');
      } finally {
        await continuing.close();
        await kit.close();
      }
    });
  });
});
