/**
 * A worker that loses its database connections in the middle of runs (the server terminates them, as
 * a database restart or a failover does, again and again for longer than a lease) recovers once the
 * database answers again, and every run still finishes exactly once: a second worker takes over the
 * runs whose lease lapsed meanwhile, the first one's late writes are fenced out, and no model call that
 * had finished and been recorded is made again.
 *
 * Pinned to PostgreSQL: workers are separate processes sharing one store, which is what PostgreSQL is
 * for here (SQLite is documented as one writer on one machine), and the fault is the server ending
 * the worker's sessions (`pg_terminate_backend`), which only a database server does.
 *
 * The outage is not a wall: a connection the worker opens may run a statement or two before the
 * next sweep ends it. A call whose result write failed four times and then went through as a
 * "could not record" failure failed its run; the store fault is now the caller's, and the run is
 * reclaimed (src/sources/invoke-store-outage.test.ts). A failure here prints where the runs were left.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { type ModelScript, startScriptedModel } from '../../src/dev/scripted-model/index.ts';
import { callsMadeAgain, recordedCalls } from '../../src/testing/calls-made-again.ts';
import { EXAMPLE_SCRIPT, readJson } from '../../src/testing/flow-kit.ts';
import { openTestStore, selectedStores } from '../../src/testing/stores.ts';
import { testTempDir } from '../../src/testing/temp-dir.ts';
import { waitUntil } from '../../src/testing/wait.ts';
import {
  queueFlowRuns,
  runStatuses,
  startWorkerCli,
  type WorkerProcess,
} from '../../src/testing/worker-kit.ts';

const RUNS = 4;
const LEASE_MS = 1_500;
/** How long every connection of the first worker is terminated as soon as it appears. */
const OUTAGE_MS = 2 * LEASE_MS;
/** Names the first worker's connections, so the server can end them and no one else's. */
const DOOMED = 'noema-test-doomed-worker';

/** Every reply held a little, so runs are in flight when the connections die. */
function slowScript(): ModelScript {
  const base = readJson(EXAMPLE_SCRIPT) as ModelScript;
  return { ...base, rules: base.rules.map((r) => ({ ...r, reply: { delay_ms: 300, ...r.reply } })) };
}

const postgres = selectedStores().includes('postgres');

describe('a worker losing its database', { skip: postgres ? false : 'STORES excludes postgres' }, () => {
  test('recovers when the database is back, and every run finishes exactly once (fenced takeover, no finished call made again)', async () => {
    const ts = await openTestStore('postgres');
    const model = await startScriptedModel({ script: slowScript() });
    const workers: WorkerProcess[] = [];
    try {
      const env = {
        NOEMA_DATA_DIR: testTempDir('noema-worker-db-loss-'),
        NOEMA_LLM_BASE_URL: model.url,
        NOEMA_LLM_MODEL: 'scripted',
        NOEMA_RUN_LEASE_MS: String(LEASE_MS),
        NOEMA_RECOVERY_INTERVAL_MS: '100',
      };
      const doomedUrl = new URL(ts.url);
      doomedUrl.searchParams.set('application_name', DOOMED);
      // The other worker is there to take over what the first one can no longer heartbeat.
      const [first, other] = await Promise.all([
        startWorkerCli({ ...env, NOEMA_DB: doomedUrl.toString() }),
        startWorkerCli({ ...env, NOEMA_DB: ts.url }),
      ]);
      workers.push(first, other);
      const ids = await queueFlowRuns(ts.store, RUNS);
      await waitUntil(
        'a run in flight on the first worker',
        async () =>
          await ts.store.get("SELECT 1 AS x FROM engine_runs WHERE status = 'running' AND lease_owner = ?", [
            first.owner,
          ]),
        { timeoutMs: 30_000, intervalMs: 10 },
      );

      // The outage: every connection the first worker opens is ended at once, for two leases.
      const killed: number[] = [];
      const until = Date.now() + OUTAGE_MS;
      while (Date.now() < until) {
        const rows = await ts.store.all<{ pid: number }>(
          `SELECT pg_terminate_backend(pid) AS ok, pid FROM pg_stat_activity
            WHERE datname = current_database() AND application_name = ? AND pid <> pg_backend_pid()`,
          [DOOMED],
        );
        killed.push(...rows.map((r) => Number(r.pid)));
        await sleep(20);
      }
      assert.ok(killed.length > 0, 'the first worker had connections to end');

      await waitUntil(
        'every run completed',
        async () => (await runStatuses(ts.store, ids)).every((s) => s === 'completed'),
        { timeoutMs: 60_000, intervalMs: 100 },
      ).catch(async (err: Error) => {
        // Says where the runs were left: which process holds each lease, and until when.
        const runs = await ts.store.all(
          'SELECT run_id, status, lease_owner, lease_expires_at, error FROM engine_runs',
        );
        throw new Error(
          `${err.message}; at ${Date.now()} (first ${first.owner}, other ${other.owner}): ${JSON.stringify(runs)}; ` +
            `first worker's stderr: ${first.cli.stderr().slice(-2000)}; other's: ${other.cli.stderr().slice(-2000)}`,
        );
      });
      assert.equal(first.cli.child.exitCode, null, `the first worker went on: ${first.cli.stderr()}`);

      // Exactly once: each node of each run ran once, and each run completed once.
      const twice = await ts.store.all(
        `SELECT flowchart_run_id, flowchart_node_id, COUNT(*) AS n FROM flowchart_node_runs
          GROUP BY flowchart_run_id, flowchart_node_id HAVING COUNT(*) > 1`,
      );
      assert.deepEqual(twice, [], 'no node ran twice');
      // No finished call made again: a call identical to one that succeeded (same run, node and
      // request) never starts after it ended. A call cut by the outage may be made again.
      const calls = await recordedCalls(
        ts.store,
        `COALESCE(run_id, '') || '|' || COALESCE(workflow_node_id, '') || '|' || request_json`,
      );
      const repeated = callsMadeAgain(calls);
      assert.deepEqual(repeated, [], 'no finished call is made again');
      // A request that reached the model has its row: nothing was called off the record.
      const recorded = new Set(calls.map((c) => c.id));
      for (const r of model.requests)
        assert.ok(
          recorded.has(String(r.headers['x-noema-source-invocation-id'])),
          'every model request has its row',
        );

      // Still a working worker once the database answers it again: it drains and exits 0.
      for (const w of workers) w.cli.child.kill('SIGTERM');
      for (const w of workers) assert.equal(await w.cli.exited, 0, w.cli.stderr());
    } finally {
      for (const w of workers) w.cli.child.kill('SIGKILL');
      await model.close();
      await ts.dispose();
    }
  });
});
