/**
 * A turn whose run stopped but whose session was never closed — the process died between the run's
 * stop and the turn's closing transaction — is no engine work, so no reclaimer claims it. A running
 * `noema serve` settles it anyway, without waiting for the session's next message. A run that
 * completes or fails closes its turn in the transaction that ends it (`src/runtimes/agent/commits.test.ts`),
 * so the turn left this way is one whose run suspended for an ECS form: its closing (the checkpoint,
 * the session `waiting`, one `ecs`) is written by serve.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startAgentKit } from '../../src/testing/agent-kit.ts';
import { startCli } from '../../src/testing/cli.ts';
import { describeEachStore } from '../../src/testing/each-store.ts';
import { FaultyStore } from '../../src/testing/faulty-store.ts';

describeEachStore('noema serve settles turns left unclosed', (factory) => {
  test('a session whose run suspended for a form but whose closing never committed is closed by serve', async () => {
    await factory.withStore(async ({ store, url }) => {
      const faulty = new FaultyStore(store);
      // The kit's default script asks for an ECS form when asked to book a slot.
      const kit = await startAgentKit(faulty, {
        definition: { emotion: { enabled: false }, synthesis: { enabled: false, threshold: 3 } },
      });
      let session_id = '';
      try {
        ({ session_id } = await kit.runtime.createSession({ agent_label: 'calculator', user_id: 'ada' }));
        // The turn's closing (its checkpoint's insert) fails where it happens, in the store: the run
        // has suspended, the closing transaction rolls back.
        faulty.arm({ matching: /INSERT INTO graph_checkpoints/ });
        await kit.runtime.sendMessage(session_id, { content: 'please book a slot' }).catch(() => null);
        faulty.disarm();
      } finally {
        // The process that ran the turn is gone.
        await kit.close();
      }
      const left = (await store.get(
        'SELECT s.status AS status, r.status AS run_status FROM agent_sessions s JOIN engine_runs r ON r.run_id = s.run_id WHERE s.session_id = ?',
        [session_id],
      )) as { status: string; run_status: string };
      assert.deepEqual(
        { ...left },
        { status: 'running', run_status: 'waiting' },
        'the state a crash there leaves',
      );

      const serve = startCli(['serve', '--port', '0'], {
        NOEMA_DB: url,
        NOEMA_TOKEN: 'settle-test-token-0123456789',
        NOEMA_RECOVERY_INTERVAL_MS: '200',
      });
      try {
        await serve.waitFor(/http:\/\/127\.0\.0\.1:\d+/, 30_000);
        let status = 'running';
        for (let i = 0; i < 100 && status === 'running'; i++) {
          await new Promise((r) => setTimeout(r, 100));
          status = (
            (await store.get('SELECT status FROM agent_sessions WHERE session_id = ?', [session_id])) as {
              status: string;
            }
          ).status;
        }
        assert.equal(status, 'waiting', 'serve closed the turn');
        const checkpoints = await store.all<{ contract_id: string }>(
          'SELECT contract_id FROM graph_checkpoints WHERE session_id = ?',
          [session_id],
        );
        assert.equal(checkpoints.length, 1, 'the form’s checkpoint');
        const ecs = await store.all<{ data: string }>(
          "SELECT data FROM agent_session_events WHERE session_id = ? AND event = 'ecs'",
          [session_id],
        );
        assert.equal(ecs.length, 1, 'one closing');
        assert.equal(
          (JSON.parse(ecs[0]!.data) as { contract_id: string }).contract_id,
          checkpoints[0]!.contract_id,
        );
      } finally {
        serve.child.kill('SIGTERM');
        await serve.exited;
      }
    });
  });
});
