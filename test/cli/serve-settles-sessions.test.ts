/**
 * A turn whose run finished but whose session was never closed — the process died between the run's
 * last step and the turn's closing transaction — is no engine work, so no reclaimer claims it. A
 * running `noema serve` settles it anyway (the answer in the transcript, the session idle, one
 * `done`), without waiting for the session's next message.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ModelScript } from '../../src/dev/scripted-model/index.ts';
import { startAgentKit } from '../../src/testing/agent-kit.ts';
import { startCli } from '../../src/testing/cli.ts';
import { describeEachStore } from '../../src/testing/each-store.ts';
import { FaultyStore } from '../../src/testing/faulty-store.ts';
import { reasoningReply } from '../../src/testing/strict-replies.ts';

const script: ModelScript = {
  rules: [],
  default: { json: reasoningReply({ thinking: 't', response: 'the answer' }) },
};

describeEachStore('noema serve settles turns left unclosed', (factory) => {
  test('a session whose run completed but whose closing never committed is closed by serve', async () => {
    await factory.withStore(async ({ store, url }) => {
      const faulty = new FaultyStore(store);
      const kit = await startAgentKit(faulty, {
        script,
        definition: { emotion: { enabled: false }, synthesis: { enabled: false, threshold: 3 } },
      });
      let session_id = '';
      try {
        ({ session_id } = await kit.runtime.createSession({ agent_label: 'calculator', user_id: 'ada' }));
        // The turn's closing (the session's conditional UPDATE) fails where it happens, in the store:
        // the run has completed, the closing transaction rolls back.
        faulty.arm({ matching: /turn_count = turn_count/ });
        await kit.runtime.sendMessage(session_id, { content: 'hello' }).catch(() => null);
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
        { status: 'running', run_status: 'completed' },
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
        assert.equal(status, 'idle', 'serve closed the turn');
        const answers = await store.all<{ content: string }>(
          "SELECT content FROM agent_session_messages WHERE session_id = ? AND role = 'assistant'",
          [session_id],
        );
        assert.deepEqual(
          answers.map((a) => a.content),
          ['the answer'],
        );
        const done = await store.all(
          "SELECT seq FROM agent_session_events WHERE session_id = ? AND event = 'done'",
          [session_id],
        );
        assert.equal(done.length, 1, 'one closing');
      } finally {
        serve.child.kill('SIGTERM');
        await serve.exited;
      }
    });
  });
});
