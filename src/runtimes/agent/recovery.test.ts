import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadScript, type ModelScript } from '../../dev/scripted-model/index.ts';
import { getLlmCall } from '../../sources/index.ts';
import { recoverInterruptedInvocations } from '../../sources/recovery.ts';
import { CALCULATOR_SCRIPT_PATH, startAgentKit } from '../../testing/agent-kit.ts';
import { describeEachStore } from '../../testing/each-store.ts';
import { reasoningReply } from '../../testing/strict-replies.ts';
import { createAgentRuntime } from './index.ts';

const WORKER = fileURLToPath(new URL('../../testing/agent-worker.ts', import.meta.url));

const script: ModelScript = {
  rules: [
    { match: { any_message_contains: 'Extract user insights' }, reply: { json: {} } },
    // The first reasoning call never answers: its process is killed while waiting (the call made
    // again after the crash is answered by the default).
    { match: { last_message_contains: 'first' }, reply: { hang: true }, times: 1 },
  ],
  default: { json: reasoningReply({ thinking: 't', response: 'back' }) },
};

/** The scripted model's request of the reasoning call that hangs (its last message is `first`). */
const asksFirst = (q: { body: { messages?: Array<{ content?: unknown }> } }) =>
  q.body.messages?.at(-1)?.content === 'first';

describeEachStore('agent sessions after a process dies mid-turn', (factory) => {
  test('another process takes the turn over once the lease expires; the session takes messages again', async () => {
    await factory.withStore(async ({ store, url }) => {
      const kit = await startAgentKit(store, { script, definition: { emotion: { enabled: false } } });
      try {
        const rt = kit.runtime;
        const { session_id } = await rt.createSession({ agent_label: 'calculator', user_id: 'ada' });
        const child = spawn(process.execPath, [WORKER, 'send', JSON.stringify([session_id, 'first'])], {
          env: { ...process.env, ...kit.env, NOEMA_DB: url, AGENT_LEASE_MS: '1500' },
        });
        // Listened for at once: a child that exits early must not leave the test waiting forever.
        const exited = new Promise((r) => child.on('exit', r));
        let out = '';
        child.stdout.on('data', (d) => {
          out += d;
        });
        // Wait (bounded) until the worker is inside the reasoning step, then give the call a moment.
        for (let i = 0; i < 300 && !/"phase":"reasoning"|"event":"status"/.test(out); i++)
          await new Promise((r) => setTimeout(r, 50));
        for (let i = 0; i < 100; i++) {
          const inflight = await store.get(
            "SELECT 1 AS one FROM source_invocations WHERE status = 'running'",
          );
          if (inflight) break;
          await new Promise((r) => setTimeout(r, 50));
        }
        // Its request reached the model (the running row is committed before a byte is sent).
        for (let i = 0; i < 300 && !kit.model.requests.some(asksFirst); i++)
          await new Promise((r) => setTimeout(r, 50));
        child.kill('SIGKILL');
        await exited;
        const stale = (await rt.getSession(session_id)) as { status: string; run_id: string };
        assert.equal(stale.status, 'running', 'the dead process left the session running');

        // While the dead process's lease lasts, the turn is still its own.
        await assert.rejects(rt.sendMessage(session_id, { content: 'second' }), { code: 'SESSION_BUSY' });

        let turn = null;
        for (let i = 0; i < 100 && !turn; i++) {
          try {
            turn = await rt.sendMessage(session_id, { content: 'second' });
          } catch (err) {
            if ((err as { code?: string }).code !== 'SESSION_BUSY') throw err;
            await new Promise((r) => setTimeout(r, 100));
          }
        }
        assert.ok(turn, 'the session took a message once the lease expired');
        assert.equal(turn.response, 'back');

        // The interrupted turn was finished, not failed: its model call made again within the turn.
        const old = await rt.engine.getRun(stale.run_id);
        assert.equal(old.status, 'completed');
        const llm = old.contracts.filter((c) => c.action_type === 'llm_generation');
        assert.deepEqual(
          llm.map((c) => [c.status, c.error?.code ?? null]),
          [
            ['FAILED', 'ACTION_INTERRUPTED'],
            ['COMPLETED', null],
          ],
        );
        const events = await rt.events(session_id);
        assert.ok(events.some((e) => e.event === 'done' && e.data.run_id === stale.run_id));
        assert.deepEqual(
          events.map((e) => e.id),
          events.map((_, i) => i + 1),
        );
        const transcript = (await rt.getSession(session_id)).transcript as Array<{
          role: string;
          content: string;
        }>;
        assert.deepEqual(
          transcript.map((m) => m.content),
          ['first', 'back', 'second', 'back'],
        );
      } finally {
        await kit.close();
      }
    });
  });

  test('a continuation whose process dies mid-turn leaves no checkpoint once the turn is settled', async () => {
    await factory.withStore(async ({ store, url }) => {
      const ecsScript: ModelScript = {
        rules: [
          { match: { any_message_contains: 'Extract user insights' }, reply: { json: {} } },
          // The continuation's reasoning call never answers: its process is killed while waiting.
          // (First: its last message is still the user's "book a slot", which the next rule matches.)
          { match: { message_matches: '✓ ecs_request → ' }, reply: { hang: true }, times: 1 },
          // The call made again after the crash answers.
          {
            match: { message_matches: '✓ ecs_request → ' },
            reply: { json: reasoningReply({ thinking: 't', response: 'booked' }) },
          },
          {
            match: { last_message_contains: 'book a slot' },
            reply: {
              json: reasoningReply({
                thinking: 'ask',
                ecs_request: {
                  title: 'Pick a day',
                  description: 'Which day?',
                  fields: { type: 'object', required: ['day'], properties: { day: { enum: ['monday'] } } },
                },
              }),
            },
          },
        ],
        default: { json: reasoningReply({ thinking: 't', response: 'back' }) },
      };
      const kit = await startAgentKit(store, {
        script: ecsScript,
        definition: { emotion: { enabled: false }, synthesis: { enabled: false, threshold: 3 } },
      });
      try {
        const rt = kit.runtime;
        const { session_id } = await rt.createSession({ agent_label: 'calculator', user_id: 'bob' });
        const turn = await rt.sendMessage(session_id, { content: 'please book a slot' });
        assert.equal(turn.status, 'waiting');
        const contract_id = turn.outcome.waiting[0]!.contract_id;
        await rt.respondEcs({ session_id, contract_id, response: { day: 'monday' } });

        const child = spawn(process.execPath, [WORKER, 'continue', session_id], {
          env: { ...process.env, ...kit.env, NOEMA_DB: url, AGENT_LEASE_MS: '1500' },
        });
        // Listened for at once: a child that exits early must not leave the test waiting forever.
        const exited = new Promise((r) => child.on('exit', r));
        let inflight = false;
        for (let i = 0; i < 300 && !inflight; i++) {
          inflight = Boolean(
            await store.get(
              "SELECT 1 AS one FROM source_invocations WHERE status = 'running' AND run_id = ?",
              [turn.run_id],
            ),
          );
          if (!inflight) await new Promise((r) => setTimeout(r, 50));
        }
        assert.ok(inflight, "the continuation's reasoning call was in flight when its process was killed");
        // Its request reached the model (the running row is committed before a byte is sent).
        const hung = (q: { body: unknown }) => JSON.stringify(q.body).includes('✓ ecs_request → ');
        for (let i = 0; i < 300 && !kit.model.requests.some(hung); i++)
          await new Promise((r) => setTimeout(r, 50));
        child.kill('SIGKILL');
        await exited;
        assert.ok(
          await store.get('SELECT 1 AS one FROM graph_checkpoints WHERE session_id = ?', [session_id]),
          'the dead continuation left its checkpoint',
        );

        let next = null;
        for (let i = 0; i < 100 && !next; i++) {
          try {
            next = await rt.sendMessage(session_id, { content: 'second' });
          } catch (err) {
            if ((err as { code?: string }).code !== 'SESSION_BUSY') throw err;
            await new Promise((r) => setTimeout(r, 100));
          }
        }
        assert.ok(next, 'the session took a message once the lease expired');
        assert.equal(next.response, 'back');
        assert.equal(
          (await rt.engine.getRun(turn.run_id)).status,
          'completed',
          'the continuation finished: its interrupted model call made again',
        );
        assert.equal(
          await store.get('SELECT 1 AS one FROM graph_checkpoints WHERE session_id = ?', [session_id]),
          undefined,
          'the settled turn deleted its checkpoint',
        );
      } finally {
        await kit.close();
      }
    });
  });

  test('a runtime that starts settles the turns a dead process left running, without a new message', async () => {
    await factory.withStore(async ({ store, url }) => {
      const kit = await startAgentKit(store, { script, definition: { emotion: { enabled: false } } });
      try {
        const rt = kit.runtime;
        const { session_id } = await rt.createSession({ agent_label: 'calculator', user_id: 'ada' });
        const child = spawn(process.execPath, [WORKER, 'send', JSON.stringify([session_id, 'first'])], {
          env: { ...process.env, ...kit.env, NOEMA_DB: url, AGENT_LEASE_MS: '1000' },
        });
        // Listened for at once: a child that exits early must not leave the test waiting forever.
        const exited = new Promise((r) => child.on('exit', r));
        for (let i = 0; i < 300; i++) {
          if (await store.get("SELECT 1 AS one FROM source_invocations WHERE status = 'running'")) break;
          await new Promise((r) => setTimeout(r, 50));
        }
        // Its request reached the model (the running row is committed before a byte is sent).
        for (let i = 0; i < 300 && !kit.model.requests.some(asksFirst); i++)
          await new Promise((r) => setTimeout(r, 50));
        child.kill('SIGKILL');
        await exited;
        const stale = (await rt.getSession(session_id)) as { status: string; run_id: string };
        assert.equal(stale.status, 'running');
        await new Promise((r) => setTimeout(r, 1200)); // the dead process's engine lease expires

        // A runtime starting on the store (another process's, in effect) settles the session.
        const other = await createAgentRuntime(store, { env: kit.env });
        try {
          await other.idle();
        } finally {
          await other.close();
        }
        const settled = (await rt.getSession(session_id)) as { status: string };
        assert.equal(settled.status, 'idle', 'no message was needed');
        assert.equal((await rt.engine.getRun(stale.run_id)).status, 'completed');
        const events = await rt.events(session_id);
        assert.equal(events.at(-1)!.event, 'done');
        assert.equal(events.at(-1)!.data.run_id, stale.run_id);
        const turn = await rt.sendMessage(session_id, { content: 'second' });
        assert.equal(turn.response, 'back');
      } finally {
        await kit.close();
      }
    });
  });
  test('a turn interrupted mid model call finishes in its turn: only the interrupted call is made again', async () => {
    await factory.withStore(async ({ store, url }) => {
      const calculator = loadScript(CALCULATOR_SCRIPT_PATH);
      // The reasoning call after the add tool answered never answers the first time: its process is
      // killed while waiting.
      const hang: ModelScript['rules'][number] = {
        match: { message_matches: '✓ add → ' },
        reply: { hang: true },
        times: 1,
      };
      const kit = await startAgentKit(store, {
        script: { ...calculator, rules: [hang, ...calculator.rules] },
        definition: { emotion: { enabled: false }, synthesis: { enabled: false, threshold: 3 } },
      });
      try {
        const rt = kit.runtime;
        const { session_id } = await rt.createSession({ agent_label: 'calculator', user_id: 'ada' });
        const child = spawn(
          process.execPath,
          [WORKER, 'send', JSON.stringify([session_id, 'please add 2 and 3'])],
          { env: { ...process.env, ...kit.env, NOEMA_DB: url, AGENT_LEASE_MS: '1000' } },
        );
        const exited = new Promise((r) => child.on('exit', r));
        const second = (q: { body: { messages?: Array<{ content?: unknown }> } }) =>
          JSON.stringify(q.body.messages ?? []).includes('✓ add → ');
        for (let i = 0; i < 300 && !kit.model.requests.some(second); i++)
          await new Promise((r) => setTimeout(r, 50));
        assert.ok(kit.model.requests.some(second), 'the second reasoning call reached the model');
        child.kill('SIGKILL');
        await exited;
        const stale = (await rt.getSession(session_id)) as { status: string; run_id: string };
        assert.equal(stale.status, 'running');
        await new Promise((r) => setTimeout(r, 1200)); // the dead process's engine lease expires

        await rt.settleStaleSessions();
        const view = (await rt.getSession(session_id)) as {
          status: string;
          transcript: Array<{ content: string }>;
        };
        assert.equal(view.status, 'idle');
        assert.deepEqual(
          view.transcript.map((m) => m.content),
          ['please add 2 and 3', '2 + 3 = 5'],
          'the turn answered',
        );
        const run = await rt.engine.getRun(stale.run_id);
        assert.equal(run.status, 'completed');
        // Counted where the calls arrive: the finished reasoning call and the MCP call were not made
        // again; the interrupted reasoning call was, once.
        const reasoning = kit.model.requests.filter((q) => /REASONING CONTEXT/.test(JSON.stringify(q.body)));
        assert.equal(reasoning.filter((q) => !second(q)).length, 1, 'the first reasoning call, once');
        assert.equal(reasoning.filter(second).length, 2, 'the interrupted call and its redo');
        assert.equal(kit.mcp.toolCalls('add'), 1, 'the add tool, once');
        const events = await rt.events(session_id);
        assert.equal(events.at(-1)!.event, 'done');
        assert.equal(events.at(-1)!.data.response, '2 + 3 = 5');
      } finally {
        await kit.close();
      }
    });
  });
});

describeEachStore('a model reply received whole before its process died', (factory) => {
  // The reasoning reply arrives whole, finish reason and all, then the stream stalls: the process
  // holds the complete answer (and has persisted its chunks) when it is killed.
  const kept: ModelScript = {
    rules: [
      { match: { any_message_contains: 'Extract user insights' }, reply: { json: {} } },
      {
        match: { last_message_contains: 'first' },
        reply: { json: reasoningReply({ thinking: 't', response: 'kept' }), hang_after_finish: true },
        times: 1,
      },
    ],
    default: { json: reasoningReply({ thinking: 't', response: 'back' }) },
  };

  for (const recoveredBy of ['the next runtime to settle the turn', 'the recovery sweep first'] as const) {
    test(`is kept, not interrupted nor asked for again (${recoveredBy})`, async () => {
      await factory.withStore(async ({ store, url }) => {
        const kit = await startAgentKit(store, {
          script: kept,
          definition: { emotion: { enabled: false }, synthesis: { enabled: false, threshold: 3 } },
        });
        try {
          const rt = kit.runtime;
          const { session_id } = await rt.createSession({ agent_label: 'calculator', user_id: 'ada' });
          const child = spawn(process.execPath, [WORKER, 'send', JSON.stringify([session_id, 'first'])], {
            env: { ...process.env, ...kit.env, NOEMA_DB: url, AGENT_LEASE_MS: '1000' },
          });
          const exited = new Promise((r) => child.on('exit', r));
          // Killed once the stalled call's chunks — the finish reason among them — are persisted.
          let persisted = false;
          for (let i = 0; i < 300 && !persisted; i++) {
            persisted = Boolean(
              await store.get(
                `SELECT 1 AS one FROM llm_call_chunks c
                   JOIN source_invocations s ON s.source_invocation_id = c.llm_call_id
                  WHERE s.status = 'running' AND c.chunks_json LIKE '%finish_reason%stop%'`,
              ),
            );
            if (!persisted) await new Promise((r) => setTimeout(r, 50));
          }
          assert.ok(persisted, "the whole reply's chunks were persisted while the stream stalled");
          child.kill('SIGKILL');
          await exited;
          const stale = (await rt.getSession(session_id)) as { status: string; run_id: string };
          assert.equal(stale.status, 'running');
          await new Promise((r) => setTimeout(r, 1200)); // the dead process's leases expire

          if (recoveredBy === 'the recovery sweep first') {
            const report = await recoverInterruptedInvocations(store);
            assert.equal(report.interrupted, 0, 'the complete reply is not marked interrupted');
          }
          await rt.settleStaleSessions();
          const view = (await rt.getSession(session_id)) as {
            status: string;
            transcript: Array<{ content: string }>;
          };
          assert.equal(view.status, 'idle');
          assert.deepEqual(
            view.transcript.map((m) => m.content),
            ['first', 'kept'],
          );
          assert.equal(
            kit.model.requests.filter(asksFirst).length,
            1,
            'the model was not asked for the reply again',
          );
          const calls = await store.all<{ status: string; response_json: string }>(
            `SELECT status, response_json FROM source_invocations WHERE run_id = ? AND invocation_kind = 'llm_generation'`,
            [stale.run_id],
          );
          assert.equal(calls.length, 1);
          assert.equal(calls[0]!.status, 'succeeded');
          assert.equal(JSON.parse(calls[0]!.response_json).response, 'kept');
          const run = await rt.engine.getRun(stale.run_id);
          const llm = run.contracts.find((c) => c.action_type === 'llm_generation')!;
          assert.equal(llm.status, 'COMPLETED');
          assert.equal(llm.transitions.at(-1)!.actor, 'recovery');
          const call = await getLlmCall(
            store,
            (await store.get<{ id: string }>(
              `SELECT source_invocation_id AS id FROM source_invocations WHERE run_id = ?`,
              [stale.run_id],
            ))!.id,
          );
          assert.equal(call.finish_reason, 'stop');
        } finally {
          await kit.close();
        }
      });
    });
  }
});
