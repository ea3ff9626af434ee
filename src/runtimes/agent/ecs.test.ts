import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startAgentKit } from '../../testing/agent-kit.ts';
import { describeEachStore } from '../../testing/each-store.ts';

const WORKER = fileURLToPath(new URL('../../testing/agent-worker.ts', import.meta.url));

/** Runs the agent worker as a separate OS process (async: this process serves the model and MCP). */
function worker(url: string, env: Record<string, string>, args: string[]): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [WORKER, ...args],
      { env: { ...process.env, ...env, NOEMA_DB: url }, timeout: 60_000 },
      (err, stdout, stderr) => {
        if (err) return reject(new Error(`${err.message}\n${stderr}`));
        resolve(JSON.parse(stdout.trim().split('\n').at(-1)!));
      },
    );
  });
}

describeEachStore('agent sessions: ECS suspension and resume', (factory) => {
  test('an ECS request suspends the run, checkpoints the GraphState by session_id, and resumes in a second process', async () => {
    await factory.withStore(async ({ store, url }) => {
      const kit = await startAgentKit(store);
      try {
        const rt = kit.runtime;
        const { session_id } = await rt.createSession({ agent_label: 'calculator', user_id: 'bob' });
        const turn = await rt.sendMessage(session_id, { content: 'please book a slot' });
        assert.equal(turn.status, 'waiting');
        assert.equal(turn.outcome.status, 'waiting');
        const waiting = turn.outcome.waiting[0]!;
        assert.equal(waiting.action_type, 'ecs_request');
        assert.equal(waiting.status, 'WAITING');
        assert.deepEqual(
          waiting.transitions.map((t) => t.to),
          ['PENDING', 'WAITING'],
        );

        // The checkpoint: GraphState serialized with every contract, keyed by session_id.
        const row = await store.get<{ run_id: string; contract_id: string; state_json: string }>(
          'SELECT run_id, contract_id, state_json FROM graph_checkpoints WHERE session_id = ?',
          [session_id],
        );
        assert.ok(row);
        assert.equal(row.contract_id, waiting.contract_id);
        const state = JSON.parse(row.state_json) as {
          contracts: Array<{ contract_id: string; status: string }>;
        };
        assert.ok(
          state.contracts.some((c) => c.contract_id === waiting.contract_id && c.status === 'WAITING'),
        );
        assert.ok(
          state.contracts.length >= 3,
          'every contract of the run is in the checkpoint (LLM calls too)',
        );

        const events = await rt.events(session_id);
        const ecs = events.find((e) => e.event === 'ecs')!;
        assert.equal(ecs.data.contract_id, waiting.contract_id);
        assert.equal((ecs.data.form as { title: string }).title, 'Pick a day');
        assert.equal((await rt.getSession(session_id)).status, 'waiting');

        // A second message while waiting is refused.
        await assert.rejects(rt.sendMessage(session_id, { content: 'hello?' }), { code: 'SESSION_BUSY' });
        // Continue before an answer is recorded is refused.
        await assert.rejects(rt.continueEcs({ session_id }), { code: 'ECS_NO_RESPONSE' });

        // An invalid answer is a typed error and changes nothing.
        const before = await store.get('SELECT * FROM graph_checkpoints WHERE session_id = ?', [session_id]);
        await assert.rejects(
          rt.respondEcs({ session_id, contract_id: waiting.contract_id, response: { day: 'sunday' } }),
          (err: { code: string; details: { errors: unknown[] } }) =>
            err.code === 'SCHEMA_INVALID' && err.details.errors.length > 0,
        );
        await assert.rejects(
          rt.respondEcs({ session_id, contract_id: 'not-the-contract', response: { day: 'monday' } }),
          { code: 'UNKNOWN_CONTRACT' },
        );
        await assert.rejects(rt.respondEcs({ session_id, response: { day: 'monday' } }), {
          code: 'INVALID_INPUT',
        });
        assert.deepEqual(
          await store.get('SELECT * FROM graph_checkpoints WHERE session_id = ?', [session_id]),
          before,
        );
        assert.equal((await rt.engine.getContract(waiting.contract_id)).status, 'WAITING');

        await rt.respondEcs({ session_id, contract_id: waiting.contract_id, response: { day: 'monday' } });

        // Continue from another OS process, which has only the store.
        const out = (await worker(url, kit.env, ['continue', session_id])) as {
          ok: boolean;
          pid: number;
          turn: { status: string; response: string };
          events: Array<{ event: string }>;
        };
        assert.equal(out.ok, true, JSON.stringify(out));
        assert.notEqual(out.pid, process.pid);
        assert.equal(out.turn.status, 'idle');
        assert.equal(out.turn.response, 'Booked for the chosen day.');
        assert.ok(out.events.some((e) => e.event === 'done'));

        const done = await rt.engine.getContract(waiting.contract_id);
        assert.equal(done.status, 'COMPLETED');
        assert.deepEqual(
          done.transitions.map((t) => t.to),
          ['PENDING', 'WAITING', 'RUNNING', 'COMPLETED'],
        );
        assert.deepEqual(done.result, { day: 'monday' });
        assert.equal(
          await store.get('SELECT 1 AS one FROM graph_checkpoints WHERE session_id = ?', [session_id]),
          undefined,
          'the checkpoint is deleted after a successful resume',
        );
        const view = await rt.getSession(session_id);
        assert.equal(view.status, 'idle');
        assert.equal(
          (view.transcript as Array<{ content: string }>).at(-1)!.content,
          'Booked for the chosen day.',
        );
        // The stream continued with the same sequence: ids stay consecutive across processes.
        const all = await rt.events(session_id);
        assert.deepEqual(
          all.map((e) => e.id),
          all.map((_, i) => i + 1),
        );
        // Continue again: nothing waits any more.
        await assert.rejects(rt.continueEcs({ session_id }), { code: 'NO_CHECKPOINT' });
      } finally {
        await kit.close();
      }
    });
  });
});
