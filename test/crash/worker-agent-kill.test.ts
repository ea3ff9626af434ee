/**
 * An agent message executed by a worker that is killed with SIGKILL in the middle of its turn (after
 * the MCP tool call, while the model answers the next reasoning step): another worker takes the run
 * over once its lease expired and finishes it from its journal. The session's turn closes once — one
 * answer, one `done`, the session idle — the client streaming the message through the API sees the
 * turn to its end, and no model or MCP call that had finished is made again.
 *
 * Pinned to PostgreSQL: the workers and the API are separate processes sharing one store (claims with
 * SKIP LOCKED, events carried by notifications); SQLite is documented as one writer on one machine.
 *
 * The killed worker's last step events (`tool_result` among them) commit with that step (the run's
 * transactions carry the session's events, `SubscribeOptions.commitWith`), and one process drives a
 * turn once: the stream holds them, and `done` comes after the last step's `thinking` and `text`.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { runAttempts } from '../../src/engine/index.ts';
import {
  type AgentSystem,
  createSession,
  postMessage,
  startAgentSystem,
  startApi,
  storedEvents,
} from '../../src/testing/agent-workers.ts';
import { callsMadeAgain, recordedCalls } from '../../src/testing/calls-made-again.ts';
import { selectedStores } from '../../src/testing/stores.ts';
import { waitUntil } from '../../src/testing/wait.ts';
import { startWorkerCli, type WorkerProcess } from '../../src/testing/worker-kit.ts';

const postgres = selectedStores().includes('postgres');
/** The reasoning step after the tool's result: the model is answering it when the worker dies. */
const AFTER_TOOL = '✓ add';

describe('an agent turn on a worker killed with SIGKILL', {
  skip: postgres ? false : 'STORES excludes postgres',
}, () => {
  test('another worker finishes it: the turn closes once, the stream ends with done, no finished call made again', async () => {
    let system: AgentSystem | undefined;
    let api: Awaited<ReturnType<typeof startApi>> | undefined;
    let first: WorkerProcess | undefined;
    let second: WorkerProcess | undefined;
    let killed = false;
    try {
      system = await startAgentSystem({
        delayMs: 100,
        leaseMs: 2_000,
        // The first worker dies the moment its request for the step after the tool reaches the model.
        async onModelRequest(request) {
          if (killed || !first || !JSON.stringify(request.body).includes(AFTER_TOOL)) return;
          killed = true;
          first.cli.child.kill('SIGKILL');
          await first.cli.exited;
        },
      });
      api = await startApi(system.env, 0);
      first = await startWorkerCli(system.env);
      const session = await createSession(api.url, 'killed');
      const message = postMessage(api.url, session, 'add 2 and 3');
      await waitUntil('the first worker killed mid-turn', () => killed, {
        timeoutMs: 60_000,
        intervalMs: 20,
      });
      assert.equal(system.mcp.toolCalls('add'), 1, 'the tool call had finished before the kill');
      second = await startWorkerCli(system.env);

      // The client's stream, opened on the API before the kill, goes on to the turn's end.
      const sse = await message;
      const names = [...sse.matchAll(/^event: (\S+)$/gm)].map((m) => m[1]!);
      assert.equal(names.at(-1), 'done', sse.slice(-600));
      assert.equal(names.filter((n) => n === 'done').length, 1);
      assert.ok(names.includes('tool_result'), names.join(' '));

      // The turn closed once: one answer, the session idle, its stored events end with one done.
      await waitUntil(
        'the session idle',
        async () =>
          (
            await system!.ts.store.get<{ status: string }>(
              'SELECT status FROM agent_sessions WHERE session_id = ?',
              [session],
            )
          )?.status === 'idle',
        { timeoutMs: 30_000, intervalMs: 100 },
      );
      const answers = await system.ts.store.all<{ run_id: string }>(
        "SELECT run_id FROM agent_session_messages WHERE session_id = ? AND role = 'assistant'",
        [session],
      );
      assert.equal(answers.length, 1, 'one answer');
      const events = await storedEvents(system.ts, session);
      assert.equal(events.filter((e) => e.endsWith(' done')).length, 1, events.join(', '));
      // Stored in order: the killed worker's tool_result, then the last step's text, then done.
      assert.ok(events.at(-1)!.endsWith(' done'), events.join(', '));
      const at = (name: string) => events.findIndex((e) => e.endsWith(` ${name}`));
      assert.ok(at('tool_result') >= 0 && at('tool_result') < at('text'), events.join(', '));
      // The run names the killed worker's attempt, then the other worker's (more than one when a
      // heartbeat came late on a loaded machine and it claimed the run again).
      const pids = (await runAttempts(system.ts.store, answers[0]!.run_id)).map((a) => Number(a.pid));
      assert.equal(pids[0], first.cli.child.pid, pids.join(', '));
      assert.ok(pids.length >= 2, pids.join(', '));
      assert.deepEqual(
        pids.slice(1).filter((p) => p !== second!.cli.child.pid),
        [],
        'finished by the other worker',
      );

      // No finished call made again: the MCP tool once, and no call identical to one that succeeded
      // (same run, kind, tool and request) starts after it ended. The step the kill cut is made again.
      assert.equal(system.mcp.toolCalls('add'), 1, 'the MCP add call is not made again');
      const calls = await recordedCalls(
        system.ts.store,
        `COALESCE(run_id, '') || '|' || invocation_kind || '|' || COALESCE(tool_name, '') || '|' ||
           COALESCE(CAST(tool_loop_round AS TEXT), '') || '|' || request_json`,
      );
      const repeated = callsMadeAgain(calls);
      assert.deepEqual(repeated, [], 'no finished call is made again');
      const emotion = system.model.requests.filter((r) =>
        JSON.stringify(r.body).includes('Detect the emotion'),
      );
      assert.equal(emotion.length, 1, 'the emotion call, finished before the kill, made once');

      second.cli.child.kill('SIGTERM');
      assert.equal(await second.cli.exited, 0, second.cli.stderr());
      api.cli.child.kill('SIGTERM');
      assert.equal(await api.cli.exited, 0, api.cli.stderr());
    } finally {
      api?.cli.child.kill('SIGKILL');
      first?.cli.child.kill('SIGKILL');
      second?.cli.child.kill('SIGKILL');
      await system?.close();
    }
  });
});
