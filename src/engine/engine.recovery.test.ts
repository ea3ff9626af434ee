import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { describeEachStore } from '../testing/each-store.ts';
import { actLoopGraph, registerKit } from '../testing/engine-kit.ts';
import { testTempDir } from '../testing/temp-dir.ts';
import { waitUntil } from '../testing/wait.ts';
import { createEngine } from './create-engine.ts';
import type { GraphSpec } from './engine.ts';

const WORKER = fileURLToPath(new URL('../testing/engine-worker.ts', import.meta.url));

function startWorker(env: Record<string, string>): { child: ChildProcess; exited: Promise<number | null> } {
  const child = spawn(process.execPath, [WORKER, 'drain'], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr?.on('data', (d) => {
    err += d;
  });
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      if (code !== 0 && code !== null) console.error(`worker stderr: ${err}`);
      resolve(code);
    }),
  );
  return { child, exited };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const tracedGraph: GraphSpec = {
  entry: 't',
  channels: { count: { reducer: 'value', default: 0 } },
  nodes: [
    { id: 't', type: 'traced' },
    { id: 'end', type: 'terminal' },
  ],
  connectors: [
    { from: 't', to: 't', route: 'again' },
    { from: 't', to: 'end', route: 'done' },
  ],
};

describeEachStore('engine crash recovery', (factory) => {
  test('kill -9 at random points: the next process finishes the run and no completed action is executed twice', async (t) => {
    const { store, url, dispose } = await factory.open();
    const dir = testTempDir('noema-kill-');
    try {
      const engine = createEngine(store);
      registerKit(engine);
      const limit = 12;
      const { run_id } = await engine.createRun(actLoopGraph(limit, 25));
      const env = {
        NOEMA_DB: url,
        ENGINE_LOG: join(dir, 'calls.log'),
        ENGINE_LEASE_MS: '300',
        ENGINE_IDLE_EXIT_MS: '1500',
      };
      const seed = Date.now();
      let rnd = seed;
      const random = () => {
        rnd = (rnd * 1103515245 + 12345) % 2147483648;
        return rnd / 2147483648;
      };
      const journalRows = async () =>
        Number((await store.get<{ n: number }>('SELECT COUNT(*) AS n FROM engine_journal'))?.n ?? 0);
      let midRunKills = 0;
      for (let kill = 0; kill < 4; kill++) {
        const before = await journalRows();
        const w = startWorker(env);
        // Kill only once this worker has journaled something, then at a random point after that.
        for (let i = 0; i < 500 && (await journalRows()) === before; i++) await sleep(10);
        await sleep(Math.floor(random() * 60));
        w.child.kill('SIGKILL');
        await w.exited;
        const rows = await journalRows();
        const { status } = await engine.getRun(run_id);
        t.diagnostic(`kill ${kill}: ${rows} journal rows, run ${status}`);
        if (rows > before && status !== 'completed') midRunKills++;
        if (status === 'completed') break;
      }
      assert.ok(
        midRunKills > 0,
        `seed ${seed}: no kill landed after the worker made progress and before the run finished`,
      );
      const last = startWorker(env);
      assert.equal(await last.exited, 0);
      const run = await engine.getRun(run_id);
      assert.equal(run.status, 'completed', `seed ${seed}: ${JSON.stringify(run.error)}`);
      assert.equal(run.state.count, limit);
      assert.equal(
        run.contracts.length,
        limit,
        'a re-executed step finds its journaled action instead of creating another',
      );
      const calls = readFileSync(env.ENGINE_LOG, 'utf8').trim().split('\n');
      assert.equal(new Set(calls).size, calls.length, `seed ${seed}: an action was executed twice`);
      for (const c of run.contracts) {
        assert.ok(c.status === 'COMPLETED' || c.status === 'FAILED', c.status);
        if (c.status === 'COMPLETED') assert.ok(calls.includes(c.contract_id));
        if (c.status === 'FAILED') {
          assert.match(c.error_message ?? '', /interrupted/);
          assert.equal(c.error?.code, 'ACTION_INTERRUPTED');
        }
      }
      assert.equal((run.state.messages as string[]).length, limit, 'each step appended exactly once');
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await dispose();
    }
  });

  test('several worker processes claim runs; no run step is executed by two of them', async () => {
    const { store, url, dispose } = await factory.open();
    const dir = testTempDir('noema-claim-');
    try {
      const engine = createEngine(store);
      registerKit(engine);
      engine.register({
        type: 'traced',
        execute: () => ({ kind: 'fail', code: 'NODE_FAILED', message: 'runs in workers' }),
      });
      const runs = [];
      for (let i = 0; i < 12; i++) runs.push((await engine.createRun(tracedGraph)).run_id);
      const env = { NOEMA_DB: url, ENGINE_TRACE: join(dir, 'trace.log'), ENGINE_IDLE_EXIT_MS: '800' };
      const workers = [startWorker(env), startWorker(env), startWorker(env)];
      assert.deepEqual(await Promise.all(workers.map((w) => w.exited)), [0, 0, 0]);
      const lines = readFileSync(env.ENGINE_TRACE, 'utf8').trim().split('\n');
      const steps = lines.map((l) => l.split(' ').slice(0, 2).join(' '));
      assert.equal(new Set(steps).size, steps.length, 'a step was executed twice');
      assert.equal(steps.length, runs.length * 5);
      for (const id of runs) {
        const run = await engine.getRun(id);
        assert.equal(run.status, 'completed');
        const pids = new Set(lines.filter((l) => l.startsWith(id)).map((l) => l.split(' ')[2]));
        assert.equal(pids.size, 1, 'one run, one worker');
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await dispose();
    }
  });

  test('an action interrupted mid-call is not re-executed: it is marked FAILED by recovery', async () => {
    const { store, dispose } = await factory.open();
    try {
      let calls = 0;
      const hanging = createEngine(store, {
        leaseMs: 60,
        actions: {
          execute: () => {
            calls++;
            return new Promise(() => {});
          },
        },
      });
      registerKit(hanging);
      const { run_id } = await hanging.createRun(actLoopGraph(2));
      void hanging.continueRun(run_id);
      await waitUntil('the first action call', () => calls > 0);
      // Simulate the process dying: the lease simply stops being renewed.
      await store.run("UPDATE engine_runs SET lease_owner = 'dead', lease_expires_at = 0");
      const next = createEngine(store, {
        actions: {
          execute: async () => {
            calls++;
            return { ok: true, result: 1 };
          },
        },
      });
      registerKit(next);
      // The hung engine's heartbeat may hold the row lock for an instant, and SKIP LOCKED then
      // skips the run: claim again briefly, as a real worker's polling loop would.
      let out = await next.claimNext();
      for (let i = 0; !out && i < 100; i++) {
        await sleep(10);
        out = await next.claimNext();
      }
      assert.equal(out?.status, 'completed');
      const run = await next.getRun(run_id);
      const first = run.contracts[0]!;
      assert.equal(first.status, 'FAILED');
      assert.deepEqual(
        first.transitions.map((t) => `${t.to}@${t.actor}`),
        ['PENDING@node:act', 'RUNNING@node:act', 'FAILED@recovery'],
      );
      assert.equal(calls, 2, 'the interrupted action ran once; the second step ran its own');
    } finally {
      await dispose();
    }
  });
});
