/**
 * The API process (`serve --no-work`) killed and restarted while a client follows a session whose
 * turn a worker executes: the client reconnects to the new API with `Last-Event-ID` and gets every
 * stored event of the turn once, in order, through to `done` — the run never depended on the API.
 *
 * Pinned to PostgreSQL: the API and the worker are separate processes sharing one store, and the
 * API hears the worker's events through the store's notifications; `--no-work` is refused on SQLite,
 * which is documented as one writer on one machine.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { runAttempts } from '../../src/engine/index.ts';
import {
  type AgentSystem,
  authorization,
  createSession,
  postMessage,
  startAgentSystem,
  startApi,
  storedEvents,
} from '../../src/testing/agent-workers.ts';
import { connectSse, type SseConnection } from '../../src/testing/sse-client.ts';
import { selectedStores } from '../../src/testing/stores.ts';
import { startWorkerCli, type WorkerProcess } from '../../src/testing/worker-kit.ts';

const postgres = selectedStores().includes('postgres');

/** Reads stored events (`seq event`; the live-only `text_delta` has none) until `done` or the stream ends. */
async function readUntilDone(
  sse: SseConnection,
  into: string[],
  stopWhen: (events: string[]) => boolean = () => false,
): Promise<'done' | 'ended' | 'stopped'> {
  for (;;) {
    const m = await sse.next(60_000).catch(() => null);
    if (m === null) return 'ended';
    if (m.event === 'text_delta' || m.id === '') continue;
    into.push(`${m.id} ${m.event}`);
    if (m.event === 'done') return 'done';
    if (stopWhen(into)) return 'stopped';
  }
}

describe('the API restarted while a worker executes a streamed turn', {
  skip: postgres ? false : 'STORES excludes postgres',
}, () => {
  test('the client reconnects with Last-Event-ID and gets every stored event once, in order', async () => {
    let system: AgentSystem | undefined;
    let api: Awaited<ReturnType<typeof startApi>> | undefined;
    let worker: WorkerProcess | undefined;
    try {
      // Each model reply held 1.5 s: the turn (emotion, reasoning, tool, reasoning) outlasts the restart.
      system = await startAgentSystem({ delayMs: 1_500, leaseMs: 3_000 });
      // The API's port, chosen by the system, is the same after its restart (as behind a load balancer).
      api = await startApi(system.env, 0);
      const port = Number(new URL(api.url).port);
      worker = await startWorkerCli(system.env);
      const session = await createSession(api.url, 'restart');
      const first = await connectSse(`${api.url}/sessions/${session}/events`, authorization);
      assert.equal(first.status, 200);
      const message = postMessage(api.url, session, 'add 2 and 3');
      const seen: string[] = [];
      // Followed until the worker recorded the turn's emotion: the turn is in the middle.
      const before = await readUntilDone(first, seen, (events) => events.some((e) => e.endsWith(' emotion')));
      assert.equal(before, 'stopped', `the turn is still going when the API dies: ${seen.join(', ')}`);

      api.cli.child.kill('SIGKILL');
      await api.cli.exited;
      first.close();
      await message; // cut with the API: the client follows the session's event stream instead
      api = await startApi(system.env, port);
      const lastId = seen.at(-1)!.split(' ')[0]!;
      const second = await connectSse(`${api.url}/sessions/${session}/events`, {
        ...authorization,
        'last-event-id': lastId,
      });
      assert.equal(second.status, 200);
      assert.equal(await readUntilDone(second, seen), 'done', seen.join(', '));
      second.close();

      assert.deepEqual(seen, await storedEvents(system.ts, session), 'every stored event once, in order');
      const seqs = seen.map((e) => Number(e.split(' ')[0]));
      assert.deepEqual(
        seqs,
        [...seqs].sort((a, b) => a - b),
      );
      // The worker executed the turn, in one attempt: the API's death did not touch it.
      const run = await system.ts.store.get<{ run_id: string; status: string }>(
        `SELECT r.run_id, r.status FROM engine_runs r JOIN agent_session_messages m ON m.run_id = r.run_id
          WHERE m.session_id = ? AND m.role = 'assistant'`,
        [session],
      );
      assert.equal(run?.status, 'completed');
      assert.deepEqual(
        (await runAttempts(system.ts.store, run!.run_id)).map((a) => Number(a.pid)),
        [worker.cli.child.pid],
      );
      assert.equal(system.mcp.toolCalls('add'), 1, 'one MCP add call');

      api.cli.child.kill('SIGTERM');
      assert.equal(await api.cli.exited, 0, api.cli.stderr());
      worker.cli.child.kill('SIGTERM');
      assert.equal(await worker.cli.exited, 0, worker.cli.stderr());
    } finally {
      api?.cli.child.kill('SIGKILL');
      worker?.cli.child.kill('SIGKILL');
      await system?.close();
    }
  });
});
