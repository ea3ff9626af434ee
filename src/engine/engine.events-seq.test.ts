/** Event `seq`: strictly increasing per run, identical in every process, above a dead process's after a takeover. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openStore, parseStoreTarget } from '../store/index.ts';
import { describeEachStore } from '../testing/each-store.ts';
import { actLoopGraph, CountingExecutor, humanGraph, registerKit } from '../testing/engine-kit.ts';
import { createEngine } from './create-engine.ts';
import type { EngineEvent, GraphSpec, NodeType } from './engine.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function assertIncreasing(events: readonly EngineEvent[], what: string): void {
  for (let i = 1; i < events.length; i++) {
    assert.ok(
      events[i]!.seq > events[i - 1]!.seq,
      `${what}: seq ${events[i]!.seq} (${events[i]!.type}) after ${events[i - 1]!.seq} (${events[i - 1]!.type})`,
    );
  }
}

describeEachStore('engine events: seq', (factory) => {
  test('every event carries a seq that increases strictly across claims, resume and cancel', async () => {
    const { store, dispose } = await factory.open();
    try {
      const engine = createEngine(store, { actions: new CountingExecutor() });
      registerKit(engine);
      const { run_id } = await engine.createRun(humanGraph);
      const seen: EngineEvent[] = [];
      const off = await engine.subscribe(run_id, (e) => seen.push(e));
      const waiting = await engine.continueRun(run_id);
      assert.equal(waiting.status, 'waiting');
      const before = seen.length;
      await engine.resume(run_id, waiting.waiting[0]!.contract_id, { approved: true });
      assert.ok(seen.length > before, 'the resume and the continued run emitted events');
      await off();
      assert.ok(seen.every((e) => Number.isSafeInteger(e.seq) && e.seq > 0));
      assertIncreasing(seen, 'one run through suspend and resume');
      assert.equal(seen.at(-1)?.type, 'run.updated');

      const second = await engine.createRun(actLoopGraph(50, 1000));
      const cancelSeen: EngineEvent[] = [];
      await engine.subscribe(second.run_id, (e) => cancelSeen.push(e));
      await engine.cancel(second.run_id);
      assertIncreasing(cancelSeen, 'cancel');
      assert.equal(cancelSeen.at(-1)?.type === 'run.updated' && cancelSeen.at(-1)?.type, 'run.updated');
    } finally {
      await dispose();
    }
  });

  test('a process taking over an abandoned run numbers its events above everything the first process sent', async () => {
    const { store, url, dispose } = await factory.open();
    const other = await openStore(parseStoreTarget(url));
    try {
      let release: () => void = () => {};
      const hang = new Promise<void>((r) => {
        release = r;
      });
      let calls = 0;
      // The first execution hangs in its second step (after committing one); the takeover runs through.
      const slow: NodeType<null> = {
        type: 'slow',
        async execute(ctx) {
          calls++;
          ctx.update({ step: ctx.step });
          if (calls === 2) await hang;
          const n = ((ctx.state.count as number | null) ?? 0) + 1;
          return { kind: 'ok', writes: { count: n }, route: n < 3 ? 'again' : 'done' };
        },
      };
      const graph: GraphSpec = {
        entry: 's',
        channels: { count: { reducer: 'value', default: 0 } },
        nodes: [
          { id: 's', type: 'slow' },
          { id: 'end', type: 'terminal' },
        ],
        connectors: [
          { from: 's', to: 's', route: 'again' },
          { from: 's', to: 'end', route: 'done' },
        ],
      };
      const first = createEngine(store, { fanOut: false, leaseMs: 60_000 });
      first.register(slow as NodeType<never>);
      const second = createEngine(other, { fanOut: false });
      second.register(slow as NodeType<never>);
      const { run_id } = await first.createRun(graph);
      const firstSeen: EngineEvent[] = [];
      const secondSeen: EngineEvent[] = [];
      await first.subscribe(run_id, (e) => firstSeen.push(e));
      await second.subscribe(run_id, (e) => secondSeen.push(e));
      const running = first.continueRun(run_id);
      for (let i = 0; i < 200 && calls < 2; i++) await sleep(5);
      assert.equal(calls, 2, 'the first process is inside its second step');
      // The first process is presumed dead: its lease expired (as after kill -9; the crash suite kills for real).
      await store.run('UPDATE engine_runs SET lease_expires_at = 0');
      const out = await second.continueRun(run_id);
      assert.equal(out.status, 'completed');
      release();
      assert.equal((await running).error?.code, 'LEASE_LOST');
      assert.ok(firstSeen.length > 0 && secondSeen.length > 0);
      assertIncreasing(firstSeen, 'first process');
      assertIncreasing(secondSeen, 'second process');
      const lastOfFirst = Math.max(...firstSeen.map((e) => e.seq));
      assert.ok(
        secondSeen[0]!.seq > lastOfFirst,
        `the takeover's first seq ${secondSeen[0]!.seq} is above the dead process's last ${lastOfFirst}`,
      );
    } finally {
      await other.close();
      await dispose();
    }
  });

  test('a subscriber in another process sees the same events with the same seqs, in order', async (t) => {
    const { store, url, dispose } = await factory.open();
    if (!store.capabilities.supportsListenNotify) {
      await dispose();
      t.skip('this store has no LISTEN/NOTIFY: there is no other process to see the events');
      return;
    }
    const other = await openStore(parseStoreTarget(url));
    try {
      const runner = createEngine(store, { actions: new CountingExecutor() });
      registerKit(runner);
      const watcher = createEngine(other);
      registerKit(watcher);
      const { run_id } = await runner.createRun(actLoopGraph(4));
      const local: EngineEvent[] = [];
      const remote: EngineEvent[] = [];
      await runner.subscribe(run_id, (e) => local.push(e));
      await watcher.subscribe(run_id, (e) => remote.push(e));
      await runner.continueRun(run_id);
      for (let i = 0; i < 200 && remote.length < local.length; i++) await sleep(10);
      await watcher.close();
      await runner.close();
      const strip = (e: EngineEvent & { origin?: string }) => {
        const { origin: _o, ...rest } = e;
        return rest;
      };
      assert.deepEqual(remote.map(strip), local);
      assertIncreasing(local, 'in-process');
    } finally {
      await other.close();
      await dispose();
    }
  });
});
