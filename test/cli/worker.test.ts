/**
 * `noema worker` executes the runs of a shared store that other processes created: it claims queued
 * runs at once, heartbeats them, finishes runs a dead worker left behind once their lease expired, and
 * drains on SIGTERM (exit 0, what it could not finish released to others at once).
 *
 * The single-worker spec runs on both stores. The specs with several workers on one store are pinned
 * to PostgreSQL: it is the store built for several processes claiming at once (SKIP LOCKED claims,
 * LISTEN/NOTIFY); on SQLite a worker is supported beside others on one machine only, with writes
 * serialized, which the single-worker spec covers.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { type ModelScript, startScriptedModel } from '../../src/dev/scripted-model/index.ts';
import { runAttempts } from '../../src/engine/index.ts';
import { type RunningCli, runCli, startCli } from '../../src/testing/cli.ts';
import { describeEachStore } from '../../src/testing/each-store.ts';
import { EXAMPLE_SCRIPT, readJson } from '../../src/testing/flow-kit.ts';
import { openTestStore, selectedStores, type TestStore } from '../../src/testing/stores.ts';
import { testTempDir } from '../../src/testing/temp-dir.ts';
import { waitUntil } from '../../src/testing/wait.ts';
import {
  queueFlowRuns,
  runStatuses,
  startWorkerCli,
  type WorkerProcess,
} from '../../src/testing/worker-kit.ts';

const BASE = readJson(EXAMPLE_SCRIPT) as ModelScript;
/** The support-triage flowchart makes this call once per run. */
const SUMMARIZE = "Summarize the customer's message";
/** The first memory call of the first run never answers: a worker is stopped while it waits. */
const HANG_FIRST_MEMORY = {
  match: { any_message_contains: 'store in long-term memory' },
  times: 1,
  reply: { hang: true },
};

async function modelWith(rules: ModelScript['rules'] = []) {
  return startScriptedModel({ script: { ...BASE, rules: [...rules, ...BASE.rules] } });
}

function envFor(db: string, modelUrl: string, leaseMs: number): NodeJS.ProcessEnv {
  return {
    NOEMA_DB: db,
    NOEMA_DATA_DIR: testTempDir('noema-worker-'),
    NOEMA_LLM_BASE_URL: modelUrl,
    NOEMA_LLM_MODEL: 'scripted',
    NOEMA_RUN_LEASE_MS: String(leaseMs),
    NOEMA_RECOVERY_INTERVAL_MS: '100',
  };
}

type Model = Awaited<ReturnType<typeof modelWith>>;
const summarizeCalls = (model: Model) =>
  model.requests.filter((r) => JSON.stringify(r.body).includes(SUMMARIZE)).length;

async function allCompleted(store: TestStore['store'], ids: string[], timeoutMs = 40_000): Promise<void> {
  await waitUntil(
    'every run completed',
    async () => (await runStatuses(store, ids)).every((s) => s === 'completed'),
    { timeoutMs, intervalMs: 100 },
  );
}

function killAll(workers: Array<WorkerProcess | undefined>): void {
  for (const w of workers) w?.cli.child.kill('SIGKILL');
}

describeEachStore('noema worker', (factory) => {
  test('executes the flowchart runs another process queued, each once, and exits 0 on SIGTERM', async () =>
    factory.withStore(async ({ store, url }) => {
      const model = await modelWith();
      let worker: WorkerProcess | undefined;
      try {
        const ids = await queueFlowRuns(store, 3);
        worker = await startWorkerCli(envFor(url, model.url, 5_000), ['--concurrency', '2']);
        await allCompleted(store, ids);
        assert.equal(summarizeCalls(model), 3, 'one summarize call per run');
        worker.cli.child.kill('SIGTERM');
        assert.equal(await worker.cli.exited, 0, worker.cli.stderr());
        assert.match(worker.cli.stdout(), /received SIGTERM, draining/);
        assert.match(worker.cli.stdout(), /drained: every run in flight stopped here/);
      } finally {
        killAll([worker]);
        await model.close();
      }
    }));
});

describeEachStore('noema workers and GET /workers', (factory) => {
  test('list the processes executing runs (stale once killed, gone once stopped) and the runs waiting for one', async () =>
    factory.withStore(async ({ store, url }) => {
      const model = await modelWith();
      let worker: WorkerProcess | undefined;
      let serve: RunningCli | undefined;
      try {
        const env = { ...envFor(url, model.url, 1_000), NOEMA_TOKEN: 'workers-test-token-0123456789' };
        const ids = await queueFlowRuns(store, 2);
        let listed = await runCli(['workers'], env);
        assert.equal(listed.code, 0, listed.stderr);
        assert.match(listed.stdout, /no process executes runs on this store/);
        assert.match(listed.stdout, /queue: 2 runnable run\(s\) not claimed \(flow 2\)/);

        worker = await startWorkerCli(env, ['--concurrency', '3']);
        await allCompleted(store, ids);
        // The registry's count of runs in flight is the worker's last heartbeat's (every third of the lease).
        let line = '';
        await waitUntil(
          'the worker listed with nothing in flight',
          async () => {
            listed = await runCli(['workers'], env);
            line = listed.stdout.split('\n').find((l) => l.startsWith(worker!.owner)) ?? '';
            return / in flight 0$/.test(line);
          },
          { timeoutMs: 20_000, intervalMs: 200 },
        );
        assert.match(
          line,
          new RegExp(`worker  host \\S+  pid ${worker.cli.child.pid}  .*concurrency 3  in flight 0$`),
        );
        assert.match(listed.stdout, /queue: 0 runnable run\(s\) not claimed\n/);

        serve = startCli(['serve', '--port', '0'], env);
        const [, serveUrl] = await serve.waitFor(/serving on (http:\/\/127\.0\.0\.1:\d+)/, 30_000);
        const res = await fetch(`${serveUrl}/workers`, {
          headers: { authorization: `Bearer ${env.NOEMA_TOKEN}` },
        });
        assert.equal(res.status, 200);
        const body = (await res.json()) as {
          workers: Array<Record<string, unknown>>;
          queue: { total: number };
        };
        assert.deepEqual(
          body.workers.map((w) => [w.kind, w.pid, w.stale]).sort(),
          [
            ['serve', serve.child.pid, false],
            ['worker', worker.cli.child.pid, false],
          ].sort(),
        );
        assert.equal(body.queue.total, 0);
        assert.equal((await fetch(`${serveUrl}/workers`)).status, 401, 'the token is needed');

        worker.cli.child.kill('SIGKILL');
        await worker.cli.exited;
        await waitUntil(
          'the killed worker listed stale',
          async () => {
            const r = await runCli(['workers'], env);
            return r.stdout.split('\n').some((l) => l.startsWith(worker!.owner) && l.endsWith('STALE'));
          },
          { timeoutMs: 20_000, intervalMs: 300 },
        );
        serve.child.kill('SIGTERM');
        assert.equal(await serve.exited, 0);
        listed = await runCli(['workers'], env);
        assert.ok(!listed.stdout.includes('  serve  '), `a stopped serve is gone: ${listed.stdout}`);
      } finally {
        killAll([worker]);
        serve?.child.kill('SIGKILL');
        await model.close();
      }
    }));
});

test('noema worker refuses an in-memory SQLite store and bad flags, exit 2, in one line', async () => {
  for (const [args, pattern] of [
    [['--db', ':memory:'], /--db is invalid: a worker needs a store other processes share/],
    [['--concurrency', '0'], /--concurrency is invalid: "0" is not an integer from 1 to 1024/],
    [
      ['--only', 'world,dreams'],
      /--only is invalid: "world,dreams" is not a comma-separated list of world, agent, flow/,
    ],
    [['--drain-ms', 'soon'], /--drain-ms is invalid: "soon"/],
  ] as const) {
    const r = await runCli(['worker', ...args], { NOEMA_DB: ':memory:' });
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.match(r.stderr, pattern);
  }
});

const postgres = selectedStores().includes('postgres');

describe('noema worker, several on one PostgreSQL store', {
  skip: postgres ? false : 'STORES excludes postgres',
}, () => {
  test('two workers share a backlog: every run completes exactly once, each model call made once', async () => {
    const ts = await openTestStore('postgres');
    const model = await modelWith();
    const workers: WorkerProcess[] = [];
    try {
      const ids = await queueFlowRuns(ts.store, 8);
      const env = envFor(ts.url, model.url, 5_000);
      workers.push(await startWorkerCli(env), await startWorkerCli(env));
      await allCompleted(ts.store, ids);
      assert.equal(summarizeCalls(model), 8, 'one summarize call per run, none repeated');
      const nodeRuns = await ts.store.all<{ n: number }>(
        `SELECT COUNT(*) AS n FROM flowchart_node_runs GROUP BY flowchart_run_id, flowchart_node_id HAVING COUNT(*) > 1`,
      );
      assert.deepEqual(nodeRuns, [], 'no node ran twice');
      for (const w of workers) w.cli.child.kill('SIGTERM');
      for (const w of workers) assert.equal(await w.cli.exited, 0, w.cli.stderr());
    } finally {
      killAll(workers);
      await model.close();
      await ts.dispose();
    }
  });

  test('a worker killed with SIGKILL mid-run: another finishes the run after the lease expires, no finished call paid again', async () => {
    const ts = await openTestStore('postgres');
    const model = await modelWith([HANG_FIRST_MEMORY]);
    let first: WorkerProcess | undefined;
    let second: WorkerProcess | undefined;
    try {
      const [id] = await queueFlowRuns(ts.store, 1);
      const env = envFor(ts.url, model.url, 1_500);
      first = await startWorkerCli(env);
      await waitUntil('the hanging memory call in flight', () => model.requests.length >= 2, {
        timeoutMs: 30_000,
        intervalMs: 20,
      });
      first.cli.child.kill('SIGKILL');
      await first.cli.exited;
      second = await startWorkerCli(env);
      await allCompleted(ts.store, [id!]);
      const lease = await ts.store.get<{ lease_owner: string | null }>(
        'SELECT lease_owner FROM engine_runs WHERE run_id = ?',
        [id!],
      );
      assert.equal(lease?.lease_owner, null);
      assert.equal(summarizeCalls(model), 1, 'the summarize call that had finished was not made again');
      // The run's record names both attempts: the killed worker's, then the one that finished it.
      assert.deepEqual(
        (await runAttempts(ts.store, id!)).map((a) => [a.worker_id, a.pid]),
        [
          [first.owner, first.cli.child.pid],
          [second.owner, second.cli.child.pid],
        ],
      );
      second.cli.child.kill('SIGTERM');
      assert.equal(await second.cli.exited, 0);
    } finally {
      killAll([first, second]);
      await model.close();
      await ts.dispose();
    }
  });

  test('SIGTERM drains: a run still in flight after --drain-ms is released and another worker takes it at once', async () => {
    const ts = await openTestStore('postgres');
    const model = await modelWith([HANG_FIRST_MEMORY]);
    let first: WorkerProcess | undefined;
    let second: WorkerProcess | undefined;
    try {
      const [id] = await queueFlowRuns(ts.store, 1);
      // A lease far longer than the test: only the drain's release lets the second worker in.
      const env = envFor(ts.url, model.url, 600_000);
      first = await startWorkerCli(env, ['--drain-ms', '300']);
      await waitUntil('the hanging memory call in flight', () => model.requests.length >= 2, {
        timeoutMs: 30_000,
        intervalMs: 20,
      });
      first.cli.child.kill('SIGTERM');
      assert.equal(await first.cli.exited, 0, first.cli.stderr());
      assert.match(first.cli.stdout(), /drained: 1 run\(s\) still in flight released to other processes/);
      second = await startWorkerCli(env);
      await allCompleted(ts.store, [id!], 20_000);
      assert.equal(summarizeCalls(model), 1, 'the summarize call that had finished was not made again');
      second.cli.child.kill('SIGTERM');
      assert.equal(await second.cli.exited, 0);
    } finally {
      killAll([first, second]);
      await sleep(20);
      await model.close();
      await ts.dispose();
    }
  });
});
