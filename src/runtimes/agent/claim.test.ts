import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { ModelScript } from '../../dev/scripted-model/index.ts';
import { startAgentKit } from '../../testing/agent-kit.ts';
import { describeEachStore } from '../../testing/each-store.ts';
import { reasoningReply } from '../../testing/strict-replies.ts';

const WORKER = fileURLToPath(new URL('../../testing/agent-worker.ts', import.meta.url));

const script: ModelScript = {
  rules: [{ match: { any_message_contains: 'Extract user insights' }, reply: { json: {} } }],
  default: { json: reasoningReply({ thinking: 't', response: 'back' }) },
};

/** A second OS process sending `content`; resolves its output once it printed `ready` (or exited). */
function sendFromProcess(env: Record<string, string>, session_id: string, content: string) {
  const child = spawn(process.execPath, [WORKER, 'send', JSON.stringify([session_id, content])], {
    env: { ...process.env, ...env },
  });
  let out = '';
  child.stdout.on('data', (d) => {
    out += d;
  });
  child.stderr.on('data', (d) => {
    out += d;
  });
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  return {
    exited,
    output: () => out,
    async claimed(): Promise<void> {
      for (let i = 0; i < 600 && !/"phase":"started"/.test(out); i++)
        await new Promise((r) => setTimeout(r, 25));
      assert.match(out, /"phase":"started"/, 'the other process claimed the session');
    },
  };
}

describeEachStore('agent session claims across processes', (factory) => {
  test('a message in this process between another process’s opening of a turn and its execution is SESSION_BUSY', async () => {
    await factory.withStore(async ({ store, url }) => {
      const kit = await startAgentKit(store, {
        script,
        definition: { emotion: { enabled: false }, synthesis: { enabled: false, threshold: 3 } },
      });
      try {
        const rt = kit.runtime;
        const { session_id } = await rt.createSession({ agent_label: 'calculator', user_id: 'ada' });
        // The other process stops for 1.5 s right after its turn opened (the session's claim and the run
        // created claimed by its engine), before executing it.
        const other = sendFromProcess(
          { ...kit.env, NOEMA_DB: url, AGENT_AFTER_CLAIM: '1500' },
          session_id,
          'first',
        );
        await other.claimed();
        const claimed = (await store.get(
          'SELECT status, run_id, claim_owner, claim_expires_at FROM agent_sessions WHERE session_id = ?',
          [session_id],
        )) as { status: string; run_id: string; claim_owner: string | null; claim_expires_at: number | null };
        assert.equal(claimed.status, 'running');
        assert.ok(
          claimed.claim_owner && claimed.claim_owner !== rt.engine.owner,
          'the claim names its owner',
        );
        assert.ok(Number(claimed.claim_expires_at) > Date.now(), 'the claim holds a lease');
        const run = (await store.get('SELECT status, lease_owner FROM engine_runs WHERE run_id = ?', [
          claimed.run_id,
        ])) as { status: string; lease_owner: string };
        assert.deepEqual({ ...run }, { status: 'running', lease_owner: claimed.claim_owner });

        // The run is its creator's, not yet executing, and the claim is live: the session is busy, and
        // the run is left to its creator.
        await assert.rejects(rt.sendMessage(session_id, { content: 'second' }), {
          code: 'SESSION_BUSY',
          retryable: true,
        });
        assert.equal(await other.exited, 0, other.output());
        assert.match(other.output(), /"ok":true/);
        const view = (await rt.getSession(session_id)) as {
          status: string;
          transcript: Array<{ content: string }>;
        };
        assert.equal(view.status, 'idle');
        assert.deepEqual(
          view.transcript.map((m) => m.content),
          ['first', 'back'],
          'only the other process’s turn ran',
        );
        const events = await rt.events(session_id);
        assert.deepEqual(
          events.map((e) => e.id),
          events.map((_, i) => i + 1),
        );
        assert.equal(events.filter((e) => e.event === 'done').length, 1);
      } finally {
        await kit.close();
      }
    });
  });

  test('a process that died right after its turn opened leaves its run claimed, finished once the leases expired', async () => {
    await factory.withStore(async ({ store, url }) => {
      const kit = await startAgentKit(store, {
        script,
        definition: { emotion: { enabled: false }, synthesis: { enabled: false, threshold: 3 } },
      });
      try {
        const rt = kit.runtime;
        const { session_id } = await rt.createSession({ agent_label: 'calculator', user_id: 'ada' });
        const other = sendFromProcess(
          {
            ...kit.env,
            NOEMA_DB: url,
            AGENT_AFTER_CLAIM: 'exit',
            AGENT_CLAIM_LEASE_MS: '1500',
            AGENT_LEASE_MS: '1500',
          },
          session_id,
          'first',
        );
        assert.equal(await other.exited, 3, other.output());
        const dead = (await store.get('SELECT status, run_id FROM agent_sessions WHERE session_id = ?', [
          session_id,
        ])) as { status: string; run_id: string };
        assert.equal(dead.status, 'running');
        // The claim, the message and the run landed together: the run is there, claimed by the dead
        // process's engine.
        assert.equal((await rt.engine.getRun(dead.run_id)).status, 'running');

        let turn = null;
        let refused = 0;
        for (let i = 0; i < 100 && !turn; i++) {
          try {
            turn = await rt.sendMessage(session_id, { content: 'second' });
          } catch (err) {
            if ((err as { code?: string }).code !== 'SESSION_BUSY') throw err;
            refused++;
            await new Promise((r) => setTimeout(r, 100));
          }
        }
        assert.ok(refused > 0, 'busy while the dead claim’s lease lasted');
        assert.ok(turn, 'the session took a message once the claim lease expired');
        assert.equal(turn.response, 'back');
        // The dead process's turn was finished, not dropped: each message has its one answer.
        const transcript = await store.all<{ role: string; content: string }>(
          'SELECT role, content FROM agent_session_messages WHERE session_id = ? ORDER BY seq',
          [session_id],
        );
        assert.deepEqual(
          transcript.map((m) => [m.role, m.content]),
          [
            ['user', 'first'],
            ['assistant', 'back'],
            ['user', 'second'],
            ['assistant', 'back'],
          ],
        );
        const view = (await rt.getSession(session_id)) as { status: string };
        assert.equal(view.status, 'idle');
      } finally {
        await kit.close();
      }
    });
  });
});
