import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { ModelScript } from '../../dev/scripted-model/index.ts';
import { startAgentKit } from '../../testing/agent-kit.ts';
import { describeEachStore } from '../../testing/each-store.ts';
import { reasoningReply } from '../../testing/strict-replies.ts';
import { waitUntil } from '../../testing/wait.ts';

const WORKER = fileURLToPath(new URL('../../testing/agent-worker.ts', import.meta.url));
const LEASE_MS = 1500;

const script: ModelScript = {
  rules: [
    { match: { any_message_contains: 'Extract user insights' }, reply: { json: {} } },
    // The first reasoning call never answers: its process is killed while waiting.
    { match: { last_message_contains: 'first' }, reply: { hang: true }, times: 1 },
  ],
  default: { json: reasoningReply({ thinking: 't', response: 'back' }) },
};

/** The scripted model's request of the reasoning call that hangs (its last message is `first`). */
const asksFirst = (q: { body: { messages?: Array<{ content?: unknown }> } }) =>
  q.body.messages?.at(-1)?.content === 'first';

describeEachStore('agent turns reclaimed with claimNext', (factory) => {
  test('a dead process’s turn is claimed by claimNext and closed as its process would have closed it', async () =>
    factory.withStore(async ({ store, url }) => {
      const kit = await startAgentKit(store, { script, definition: { emotion: { enabled: false } } });
      try {
        const rt = kit.runtime;
        const { session_id } = await rt.createSession({ agent_label: 'calculator', user_id: 'ada' });
        const child = spawn(process.execPath, [WORKER, 'send', JSON.stringify([session_id, 'first'])], {
          env: { ...process.env, ...kit.env, NOEMA_DB: url, AGENT_LEASE_MS: String(LEASE_MS) },
        });
        const exited = new Promise((r) => child.on('exit', r));
        // Killed once its reasoning request reached the model (its running row is committed first).
        await waitUntil('the first reasoning call in flight', () => kit.model.requests.some(asksFirst), {
          timeoutMs: 30_000,
          intervalMs: 20,
        });
        child.kill('SIGKILL');
        await exited;
        const stale = (await rt.getSession(session_id)) as { status: string; run_id: string };
        assert.equal(stale.status, 'running', 'the dead process left the session running');
        await new Promise((r) => setTimeout(r, LEASE_MS + 100)); // its lease expires

        const outcome = await rt.engine.claimNext();
        assert.equal(outcome?.run_id, stale.run_id);
        assert.equal(outcome?.status, 'completed', JSON.stringify(outcome?.error));
        const session = (await rt.getSession(session_id)) as {
          status: string;
          transcript: Array<{ role: string; content: string }>;
        };
        assert.equal(session.status, 'idle', 'the session is free again');
        assert.deepEqual(
          session.transcript.map((m) => [m.role, m.content]),
          [
            ['user', 'first'],
            ['assistant', 'back'],
          ],
        );
        const events = await rt.events(session_id);
        const done = events.filter((e) => e.event === 'done' && e.data.run_id === stale.run_id);
        assert.equal(done.length, 1, 'the turn closed once, with its done event');
        const turn = await rt.sendMessage(session_id, { content: 'second' });
        assert.equal(turn.response, 'back');
      } finally {
        await kit.close();
      }
    }));
});
