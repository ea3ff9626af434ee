/**
 * Crash and concurrency (seed 004 "Failure"): a real child process killed with SIGKILL in the
 * middle of a turn leaves canonical state untouched, and the next run_turn continues the attempt
 * from the engine journal without paying again for calls that finished; concurrent run_turn on
 * one world runs exactly one attempt.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { isNoemaError } from '../../src/core/errors.ts';
import { loadScript } from '../../src/dev/scripted-model/index.ts';
import { createWorldRuntime, getAttempt, getWorld } from '../../src/runtimes/world/index.ts';
import { recoverInterruptedInvocations } from '../../src/sources/index.ts';
import type { Store } from '../../src/store/store.ts';
import { describeEachStore } from '../../src/testing/each-store.ts';
import { PARK_SCRIPT, startParkKit } from '../../src/testing/world-kit.ts';
import { count } from './helpers.ts';

const WORKER = fileURLToPath(new URL('../../src/testing/world-worker.ts', import.meta.url));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type ParkKit = Awaited<ReturnType<typeof startParkKit>>;

/** The park's script, but `subject`'s first generation hangs after one chunk. */
function hangingFirstGeneration(subject: string) {
  const park = loadScript(PARK_SCRIPT);
  const hang = { match: { subject }, times: 1, reply: { hang: true, hang_after_chunks: 1, json: {} } };
  return { ...park, rules: [hang, ...park.rules] };
}

/** Runs the park's turn in a child process and kills it (SIGKILL) once `subject`'s generation is in flight. */
async function killWhileInFlight(kit: ParkKit, store: Store, url: string, subject: string): Promise<void> {
  const child = spawn(process.execPath, [WORKER, 'park'], {
    env: { ...process.env, ...kit.env, NOEMA_DB: url, WORLD_LEASE_MS: '1000' },
    stdio: 'ignore',
  });
  const exited = new Promise((r) => child.on('exit', r));
  const deadline = Date.now() + 20_000;
  // Killed once the subject's request reached the model (its running row is committed before it is sent).
  while (
    (await count(
      store,
      "SELECT COUNT(*) AS n FROM source_invocations WHERE workflow_subject_entity_id = ? AND invocation_kind = 'llm_generation' AND status = 'running'",
      [subject],
    )) === 0 ||
    !kit.model.requests.some((q) => q.headers['x-noema-subject'] === subject)
  ) {
    assert.ok(Date.now() < deadline, `the child never reached ${subject}`);
    await sleep(50);
  }
  child.kill('SIGKILL');
  await exited;
}

/** run_turn once the dead child's lease has expired (ATTEMPT_IN_PROGRESS until then), bounded. */
async function continueTurn(kit: ParkKit): Promise<Awaited<ReturnType<ParkKit['runtime']['runTurn']>>> {
  const until = Date.now() + 20_000;
  for (;;) {
    try {
      return await kit.runtime.runTurn({ world_slug: 'park' });
    } catch (err) {
      if (!(isNoemaError(err) && err.code === 'ATTEMPT_IN_PROGRESS') || Date.now() > until) throw err;
      await sleep(200);
    }
  }
}

describeEachStore('world turns under crashes and concurrency', (factory) => {
  test('kill -9 mid-turn: no partial state; the next run_turn finishes the attempt without repeating finished calls', async () => {
    await factory.withStore(async ({ store, url }) => {
      // The ant's first generation hangs after one chunk: the child is killed while it is in flight.
      const kit = await startParkKit(store, { script: hangingFirstGeneration('ant'), leaseMs: 1000 });
      try {
        await kit.world('park');
        await killWhileInFlight(kit, store, url, 'ant');
        assert.equal((await getWorld(store, { world_slug: 'park' })).head_turn, 0, 'nothing committed');
        const before = {
          weather: kit.toys.requests.filter((r) => r.path === '/weather').length,
          vending: kit.toys.requests.filter((r) => r.path === '/buy_candy').length,
        };
        assert.deepEqual(before, { weather: 1, vending: 1 });

        // While the dead child's lease lasts, the attempt is still in progress.
        await assert.rejects(
          kit.runtime.runTurn({ world_slug: 'park' }),
          (e) => isNoemaError(e) && e.code === 'ATTEMPT_IN_PROGRESS',
        );
        const report = await recoverInterruptedInvocations(store);
        assert.ok(report.interrupted >= 1);
        const result = await continueTurn(kit);
        assert.equal(result.status, 'committed', JSON.stringify(result.failure));
        assert.equal(result.turn, 1);
        assert.deepEqual(
          result.patches.map((p) => p.subject_entity_id),
          ['bob', 'ant'],
        );
        // Finished calls were replayed from the journal, not made again.
        assert.equal(kit.toys.requests.filter((r) => r.path === '/weather').length, 1);
        assert.equal(kit.toys.requests.filter((r) => r.path === '/buy_candy').length, 1);
        const a = await getAttempt(store, { attempt_id: result.attempt_id });
        const bobGens = a.source_invocations.filter(
          (s) => s.invocation_kind === 'llm_generation' && s.workflow_subject_entity_id === 'bob',
        );
        assert.equal(bobGens.length, 2);
        const antGens = a.source_invocations.filter(
          (s) => s.invocation_kind === 'llm_generation' && s.workflow_subject_entity_id === 'ant',
        );
        assert.deepEqual(
          antGens.map((s) => s.status),
          ['interrupted', 'succeeded'],
        );
        assert.equal(
          await count(store, "SELECT COUNT(*) AS n FROM world_attempts WHERE world_slug = 'park'"),
          1,
          'one attempt, continued',
        );
        assert.equal((await getWorld(store, { world_slug: 'park' })).entities.crumb!.state, 'gone');
      } finally {
        await kit.close();
      }
    });
  });

  test('kill -9 in a subject’s first generation: its before-subject ambient call, finished, is not made again', async () => {
    await factory.withStore(async ({ store, url }) => {
      // Bob's first generation hangs after one chunk: his phone inbox (an ambient source his first
      // generation reads before it asks the model) has answered, and his step has not committed.
      const kit = await startParkKit(store, { script: hangingFirstGeneration('bob'), leaseMs: 1000 });
      try {
        await kit.world('park');
        await killWhileInFlight(kit, store, url, 'bob');
        const calls = (path: string) => kit.toys.requests.filter((r) => r.path === path).length;
        assert.deepEqual([calls('/weather'), calls('/announcement'), calls('/inbox')], [1, 1, 1]);
        await recoverInterruptedInvocations(store);
        const result = await continueTurn(kit);
        assert.equal(result.status, 'committed', JSON.stringify(result.failure));
        assert.deepEqual(
          [calls('/weather'), calls('/announcement'), calls('/inbox')],
          [1, 1, 1],
          'no ambient source was called again',
        );
        const a = await getAttempt(store, { attempt_id: result.attempt_id });
        const inbox = a.source_invocations.filter((s) => s.ambient_source_id === 'bob_phone_inbox');
        assert.deepEqual(
          inbox.map((s) => s.status),
          ['succeeded'],
        );
        // Bob's prompt after the crash still carries what his inbox said.
        const bobs = kit.model.requests.filter((q) => q.headers['x-noema-subject'] === 'bob');
        assert.ok(bobs.length >= 2);
        for (const q of bobs) assert.match(JSON.stringify(q.body.messages), /inbox/);
      } finally {
        await kit.close();
      }
    });
  });

  test('concurrent run_turn on one world: exactly one attempt runs, the others get ATTEMPT_IN_PROGRESS', async () => {
    await factory.withStore(async ({ store }) => {
      const park = loadScript(PARK_SCRIPT);
      const slow = {
        ...park,
        rules: park.rules.map((r) => ({ ...r, reply: { ...r.reply, delay_ms: 150 } })),
      };
      const kit = await startParkKit(store, { script: slow });
      const other = createWorldRuntime(store, { env: kit.env });
      try {
        await kit.world('park');
        const results = await Promise.allSettled([
          kit.runtime.runTurn({ world_slug: 'park' }),
          other.runTurn({ world_slug: 'park' }),
          kit.runtime.runTurn({ world_slug: 'park' }),
          other.runTurn({ world_slug: 'park' }),
        ]);
        const ok = results.filter((r) => r.status === 'fulfilled');
        const refused = results.filter((r) => r.status === 'rejected');
        assert.equal(
          ok.length,
          1,
          JSON.stringify(refused.map((r) => String((r as PromiseRejectedResult).reason))),
        );
        for (const r of refused)
          assert.equal((r as PromiseRejectedResult).reason.code, 'ATTEMPT_IN_PROGRESS');
        assert.equal(
          await count(store, "SELECT COUNT(*) AS n FROM world_attempts WHERE world_slug = 'park'"),
          1,
        );
        assert.equal((await getWorld(store, { world_slug: 'park' })).head_turn, 1);
      } finally {
        await other.close();
        await kit.close();
      }
    });
  });
});
