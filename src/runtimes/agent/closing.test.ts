// A turn whose process died is closed once — its answer (or error) and closing event written by one
// closer — however many settle it at once: a background settle and the next message's, each on its
// own store connection; and a run a reclaimer claims (engine.claimNext) closes its session too.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { migrations } from '../../app/migrations.ts';
import type { ModelScript } from '../../dev/scripted-model/index.ts';
import { openStore, parseStoreTarget } from '../../store/index.ts';
import type { Store } from '../../store/store.ts';
import { type AgentKit, startAgentKit } from '../../testing/agent-kit.ts';
import { describeEachStore } from '../../testing/each-store.ts';
import { reasoningReply } from '../../testing/strict-replies.ts';
import { createAgentRuntime } from './index.ts';
import { claimSession, closeTurn, findSession } from './sessions/session-store.ts';

const WORKER = fileURLToPath(new URL('../../testing/agent-worker.ts', import.meta.url));

const script: ModelScript = {
  rules: [
    { match: { any_message_contains: 'Extract user insights' }, reply: { json: {} } },
    // The first reasoning call never answers: its process is killed while waiting.
    { match: { last_message_contains: 'first' }, reply: { hang: true }, times: 1 },
  ],
  default: { json: reasoningReply({ thinking: 't', response: 'back' }) },
};

/** Sends `first` in a worker process, kills it mid model call, and waits out its engine lease. */
async function crashMidTurn(kit: AgentKit, store: Store, url: string, session_id: string): Promise<string> {
  const child = spawn(process.execPath, [WORKER, 'send', JSON.stringify([session_id, 'first'])], {
    env: { ...process.env, ...kit.env, NOEMA_DB: url, AGENT_LEASE_MS: '1000' },
  });
  const exited = new Promise((r) => child.on('exit', r));
  let inflight = false;
  for (let i = 0; i < 300 && !inflight; i++) {
    inflight = Boolean(await store.get("SELECT 1 AS one FROM source_invocations WHERE status = 'running'"));
    if (!inflight) await new Promise((r) => setTimeout(r, 50));
  }
  assert.ok(inflight, "the worker's model call was in flight");
  // Its request reached the model (the running row is committed before a byte is sent).
  const asked = (q: { body: { messages?: Array<{ content?: unknown }> } }) =>
    q.body.messages?.at(-1)?.content === 'first';
  for (let i = 0; i < 300 && !kit.model.requests.some(asked); i++)
    await new Promise((r) => setTimeout(r, 50));
  child.kill('SIGKILL');
  await exited;
  const stale = (await kit.runtime.getSession(session_id)) as { status: string; run_id: string };
  assert.equal(stale.status, 'running');
  await new Promise((r) => setTimeout(r, 1200)); // the dead process's engine lease expires
  return stale.run_id;
}

const CLOSING = new Set(['done', 'error', 'ecs']);

describeEachStore('closing a crashed agent turn', (factory) => {
  test('a background settle and the next message racing on two connections close the turn once', async () => {
    await factory.withStore(async ({ store, url }) => {
      const kit = await startAgentKit(store, {
        script,
        definition: { emotion: { enabled: false }, synthesis: { enabled: false, threshold: 3 } },
      });
      // A second connection to the same store, with its own runtime (as another process has).
      const other = await openStore(parseStoreTarget(url), { migrations });
      const second = await createAgentRuntime(other, { env: kit.env, resumeBackground: false });
      try {
        const { session_id } = await kit.runtime.createSession({ agent_label: 'calculator', user_id: 'ada' });
        const stale = await crashMidTurn(kit, store, url, session_id);
        // The run itself is finished by the engine alone (as a reclaimer without the agent's driver
        // would): only the session's closing is left, and both closers find it to do.
        const finished = await kit.runtime.engine.continueRun(stale);
        assert.notEqual(finished.status, 'running');
        assert.equal(((await kit.runtime.getSession(session_id)) as { status: string }).status, 'running');

        const [, turn] = await Promise.all([
          kit.runtime.settleStaleSessions(),
          second.sendMessage(session_id, { content: 'second' }),
          second.settleStaleSessions(),
        ]);
        assert.equal(turn.response, 'back');
        await kit.runtime.idle();
        await second.idle();

        const events = await kit.runtime.events(session_id);
        const closings = events.filter((e) => CLOSING.has(e.event) && e.data.run_id === stale);
        assert.equal(closings.length, 1, `one closing of the crashed turn: ${JSON.stringify(closings)}`);
        assert.deepEqual(
          events.map((e) => e.id),
          events.map((_, i) => i + 1),
        );
        // The crashed turn's closing comes before the next turn's first event.
        const nextStart = events.findIndex((e) => e.data.run_id === turn.run_id);
        assert.ok(events.indexOf(closings[0]!) < nextStart);
        const messages = await store.all<{ run_id: string; role: string; content: string }>(
          'SELECT run_id, role, content FROM agent_session_messages WHERE session_id = ? ORDER BY seq',
          [session_id],
        );
        const answers = messages.filter((m) => m.role === 'assistant' && m.run_id === stale);
        assert.ok(answers.length <= 1, `at most one answer of the crashed turn: ${JSON.stringify(messages)}`);
        assert.deepEqual({ ...messages.at(-1) }, { run_id: turn.run_id, role: 'assistant', content: 'back' });
        assert.equal(messages.at(-2)!.content, 'second');
        const view = (await kit.runtime.getSession(session_id)) as { status: string; turn_count?: number };
        assert.equal(view.status, 'idle');
      } finally {
        await second.close();
        await other.close();
        await kit.close();
      }
    });
  });

  test('a run a reclaimer claims (claimNext) closes its session as its own process would have', async () => {
    await factory.withStore(async ({ store, url }) => {
      const kit = await startAgentKit(store, {
        script,
        definition: { emotion: { enabled: false }, synthesis: { enabled: false, threshold: 3 } },
      });
      try {
        const { session_id } = await kit.runtime.createSession({ agent_label: 'calculator', user_id: 'ada' });
        const stale = await crashMidTurn(kit, store, url, session_id);
        const claimed = await kit.runtime.engine.claimNext();
        assert.equal(claimed?.run_id, stale);
        const view = (await kit.runtime.getSession(session_id)) as { status: string };
        assert.equal(view.status, 'idle', 'the reclaimed turn freed its session');
        const events = await kit.runtime.events(session_id);
        assert.ok(CLOSING.has(events.at(-1)!.event));
        assert.equal(events.at(-1)!.data.run_id, stale);
        assert.equal(events.filter((e) => CLOSING.has(e.event)).length, 1);
        // Settling again finds nothing to close.
        await kit.runtime.settleStaleSessions();
        assert.equal((await kit.runtime.events(session_id)).length, events.length);
      } finally {
        await kit.close();
      }
    });
  });
  test('a turn closes only under its own claim: a later claim of the same run (an ECS continuation) is not closed by it', async () => {
    await factory.withStore(async ({ store }) => {
      const kit = await startAgentKit(store, { definition: { emotion: { enabled: false } } });
      try {
        const { session_id } = await kit.runtime.createSession({ agent_label: 'calculator', user_id: 'ada' });
        const run_id = '01900000-0000-7000-8000-000000000001';
        const first = await claimSession(store, session_id, 'idle', { run_id, owner: 'a', lease_ms: 60_000 });
        assert.ok(first);
        assert.equal(await closeTurn(store, session_id, run_id, first, 'waiting'), true);
        assert.equal(await closeTurn(store, session_id, run_id, first, 'waiting'), false, 'closed once');
        // The continuation claims the same run anew; a late closer of the first turn finds nothing.
        const second = await claimSession(store, session_id, 'waiting', {
          run_id,
          owner: 'b',
          lease_ms: 60_000,
        });
        assert.ok(second);
        assert.equal(await closeTurn(store, session_id, run_id, first, 'waiting'), false);
        assert.equal((await findSession(store, session_id))?.status, 'running');
        assert.equal(await closeTurn(store, session_id, run_id, second, 'idle', true), true);
        const done = await findSession(store, session_id);
        assert.equal(done?.status, 'idle');
        assert.equal(done?.claim_owner, null);
        assert.equal(done?.turn_count, 1);
      } finally {
        await kit.close();
      }
    });
  });
});
