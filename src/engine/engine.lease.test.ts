import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachStore } from '../testing/each-store.ts';
import { actLoopGraph, CountingExecutor, humanGraph, registerKit } from '../testing/engine-kit.ts';
import { waitUntil } from '../testing/wait.ts';
import { createEngine } from './create-engine.ts';
import type { EngineEvent, GraphSpec, NodeType } from './engine.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describeEachStore('engine leases, cancel and events', (factory) => {
  test('a process whose lease was taken stops without writing another journal row', async () => {
    const { store, dispose } = await factory.open();
    try {
      let steps = 0;
      const engine = createEngine(store, { leaseMs: 60 });
      registerKit(engine);
      engine.register({
        type: 'slow',
        async execute(ctx) {
          steps++;
          await sleep(15);
          return { kind: 'ok', writes: { count: ((ctx.state.count as number) ?? 0) + 1 } };
        },
      } as NodeType<never>);
      const graph: GraphSpec = {
        entry: 's',
        channels: { count: { reducer: 'value', default: 0 } },
        nodes: [
          { id: 's', type: 'slow' },
          { id: 'end', type: 'terminal' },
        ],
        connectors: [
          { from: 's', to: 's' },
          { from: 's', to: 'end', route: 'never' },
        ],
      };
      const { run_id } = await engine.createRun(graph);
      const running = engine.continueRun(run_id);
      await waitUntil('three steps', () => steps >= 3);
      await store.run(`UPDATE engine_runs SET lease_owner = 'thief', lease_expires_at = ?`, [
        Date.now() + 60_000,
      ]);
      const rowsAtTheft = await store.get<{ n: number }>('SELECT COUNT(*) AS n FROM engine_journal');
      const out = await running;
      assert.equal(out.error?.code, 'LEASE_LOST');
      const rowsAfter = await store.get<{ n: number }>('SELECT COUNT(*) AS n FROM engine_journal');
      assert.equal(Number(rowsAfter?.n), Number(rowsAtTheft?.n), 'no row written after the lease moved');
    } finally {
      await dispose();
    }
  });

  test('cancel moves the run and its unfinished contracts to cancelled; cancelling again is rejected', async () => {
    const { store, dispose } = await factory.open();
    try {
      const engine = createEngine(store);
      registerKit(engine);
      const out = await engine.start(humanGraph);
      await engine.cancel(out.run_id);
      const run = await engine.getRun(out.run_id);
      assert.equal(run.status, 'cancelled');
      assert.equal(run.contracts[0]?.status, 'CANCELLED');
      assert.equal(run.contracts[0]?.transitions.at(-1)?.actor, 'cancel');
      await assert.rejects(engine.cancel(out.run_id), { code: 'INVALID_TRANSITION' });
      await assert.rejects(engine.resume(out.run_id, run.contracts[0]!.contract_id, { approved: true }), {
        code: 'INVALID_TRANSITION',
      });
    } finally {
      await dispose();
    }
  });

  test('a node visited again in a loop starts at attempt 1 (corrective context is per execution)', async () => {
    const { store, dispose } = await factory.open();
    try {
      const engine = createEngine(store);
      registerKit(engine);
      const seen: number[] = [];
      engine.register({
        type: 'twice_flaky',
        execute(ctx) {
          seen.push(ctx.attempt);
          if (ctx.attempt === 1) return { kind: 'retry_generation', error: 'bad', corrective: 'again' };
          const n = ((ctx.state.count as number) ?? 0) + 1;
          return { kind: 'ok', writes: { count: n }, route: n < 2 ? 'again' : 'done' };
        },
      } as NodeType<never>);
      const out = await engine.start({
        entry: 'f',
        channels: { count: { reducer: 'value', default: 0 } },
        nodes: [
          { id: 'f', type: 'twice_flaky', max_generation_attempts: 2 },
          { id: 'end', type: 'terminal' },
        ],
        connectors: [
          { from: 'f', to: 'f', route: 'again' },
          { from: 'f', to: 'end', route: 'done' },
        ],
      });
      assert.equal(out.status, 'completed');
      assert.deepEqual(seen, [1, 2, 1, 2]);
    } finally {
      await dispose();
    }
  });

  test('events fan out to other processes through LISTEN/NOTIFY', async (t) => {
    const { store, url, dispose } = await factory.open();
    try {
      if (!store.capabilities.supportsListenNotify) {
        t.skip('this store has no LISTEN/NOTIFY; in-process events are covered by the runs suite');
        return;
      }
      const { openStore, parseStoreTarget } = await import('../store/index.ts');
      const other = await openStore(parseStoreTarget(url));
      try {
        const watcher = createEngine(other);
        registerKit(watcher);
        const runner = createEngine(store, { actions: new CountingExecutor() });
        registerKit(runner);
        const { run_id } = await runner.createRun(actLoopGraph(2));
        const seen: Array<EngineEvent & { origin?: string }> = [];
        const off = await watcher.subscribe(run_id, (e) => seen.push(e));
        await runner.continueRun(run_id);
        for (
          let i = 0;
          i < 100 && !seen.some((e) => e.type === 'run.updated' && e.status === 'completed');
          i++
        )
          await sleep(20);
        await off();
        await watcher.close();
        assert.ok(seen.length > 0);
        assert.ok(seen.every((e) => e.origin === runner.owner));
        assert.ok(seen.some((e) => e.type === 'contract.transitioned' && e.to === 'COMPLETED'));
        assert.equal(seen.at(-1)?.type, 'run.updated');
      } finally {
        await other.close();
      }
    } finally {
      await dispose();
    }
  });
});
