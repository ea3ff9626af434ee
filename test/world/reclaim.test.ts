/**
 * A world turn whose process died is finished by any process holding an engine with the world
 * runtime, through the engine's `claimNext` (a reclaimer), and its attempt ends as `run_turn` would
 * have ended it: committed by the run, or failed with the run's failure.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadScript, type ModelScript } from '../../src/dev/scripted-model/index.ts';
import { getWorld } from '../../src/runtimes/world/index.ts';
import { recoverInterruptedInvocations } from '../../src/sources/index.ts';
import type { Store } from '../../src/store/store.ts';
import { describeEachStore } from '../../src/testing/each-store.ts';
import { waitUntil } from '../../src/testing/wait.ts';
import { PARK_SCRIPT, type ParkKit, startParkKit } from '../../src/testing/world-kit.ts';

const WORKER = fileURLToPath(new URL('../../src/testing/world-worker.ts', import.meta.url));
const LEASE_MS = 1000;

/** The park's script with the ant's first generation hanging, then `after` for the ant's later ones. */
function antHangs(after?: ModelScript['rules'][number]['reply']): ModelScript {
  const park = loadScript(PARK_SCRIPT);
  const hang = { match: { subject: 'ant' }, times: 1, reply: { hang: true, hang_after_chunks: 1, json: {} } };
  const then = after ? [{ match: { subject: 'ant' }, reply: after }] : [];
  return { ...park, rules: [hang, ...then, ...park.rules] };
}

/** Runs the park's turn in a child process, kills it (SIGKILL) during the ant's generation; returns the attempt. */
async function killMidTurn(
  kit: ParkKit,
  store: Store,
  url: string,
): Promise<{ attempt_id: string; run_id: string }> {
  const child = spawn(process.execPath, [WORKER, 'park'], {
    env: { ...process.env, ...kit.env, NOEMA_DB: url, WORLD_LEASE_MS: String(LEASE_MS) },
    stdio: 'ignore',
  });
  const exited = new Promise((r) => child.on('exit', r));
  await waitUntil(
    'the ant generation in flight',
    () => kit.model.requests.some((q) => q.headers['x-noema-subject'] === 'ant'),
    { timeoutMs: 20_000, intervalMs: 20 },
  );
  child.kill('SIGKILL');
  await exited;
  const row = await store.get<{ attempt_id: string; run_id: string }>(
    "SELECT attempt_id, run_id FROM world_attempts WHERE world_slug = 'park' AND status = 'running'",
  );
  assert.ok(row, 'the dead process left its attempt running');
  await recoverInterruptedInvocations(store);
  await new Promise((r) => setTimeout(r, LEASE_MS + 50)); // its lease expires
  return row;
}

async function attemptOf(store: Store, attempt_id: string) {
  return store.get<{ status: string; failure_json: string | null }>(
    'SELECT status, failure_json FROM world_attempts WHERE attempt_id = ?',
    [attempt_id],
  );
}

describeEachStore('world turns reclaimed with claimNext', (factory) => {
  test('a dead process’s turn is claimed and committed: the world advances, the attempt is committed', async () =>
    factory.withStore(async ({ store, url }) => {
      const kit = await startParkKit(store, { script: antHangs(), leaseMs: LEASE_MS });
      try {
        await kit.world('park');
        const { attempt_id, run_id } = await killMidTurn(kit, store, url);
        const outcome = await kit.runtime.engine.claimNext();
        assert.equal(outcome?.run_id, run_id);
        assert.equal(outcome?.status, 'completed', JSON.stringify(outcome?.error));
        assert.equal((await attemptOf(store, attempt_id))?.status, 'committed');
        assert.equal((await getWorld(store, { world_slug: 'park' })).head_turn, 1);
      } finally {
        await kit.close();
      }
    }));

  test('a dead process’s turn that fails once claimed ends its attempt failed, and the world is free again', async () =>
    factory.withStore(async ({ store, url }) => {
      const kit = await startParkKit(store, {
        script: antHangs({ error: { status: 400, body: { error: { message: 'no more ants' } } } }),
        leaseMs: LEASE_MS,
      });
      try {
        await kit.world('park');
        const { attempt_id, run_id } = await killMidTurn(kit, store, url);
        const outcome = await kit.runtime.engine.claimNext();
        assert.equal(outcome?.run_id, run_id);
        assert.equal(outcome?.status, 'failed');
        const attempt = await attemptOf(store, attempt_id);
        assert.equal(attempt?.status, 'failed', 'closed as run_turn closes a failed run');
        const failure = JSON.parse(attempt?.failure_json ?? 'null') as {
          code: string;
          subject_entity_id?: string;
        };
        assert.equal(failure.code, outcome?.error?.code);
        assert.equal(failure.subject_entity_id, 'ant');
        assert.equal((await getWorld(store, { world_slug: 'park' })).head_turn, 0);
        const running = await store.get<{ n: number }>(
          "SELECT COUNT(*) AS n FROM world_attempts WHERE world_slug = 'park' AND status = 'running'",
        );
        assert.equal(Number(running?.n), 0, 'no attempt left blocking the world');
      } finally {
        await kit.close();
      }
    }));
});
