/** Event `seq`: strictly increasing per run, identical in every process, above a dead process's after a takeover. */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { openStore, parseStoreTarget } from '../store/index.ts';
import { describeEachStore } from '../testing/each-store.ts';
import { actLoopGraph, CountingExecutor, humanGraph, registerKit } from '../testing/engine-kit.ts';
import { testTempDir } from '../testing/temp-dir.ts';
import { createEngine } from './create-engine.ts';
import type { EngineEvent, GraphSpec, NodeType } from './engine.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const WORKER = fileURLToPath(new URL('../testing/engine-worker.ts', import.meta.url));

function readSeqs(file: string): number[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .flatMap((l) => {
      try {
        return [(JSON.parse(l) as { seq: number }).seq];
      } catch {
        return []; // a line cut by the kill
      }
    });
}

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
      for (let i = 0; i < 1000 && calls < 2; i++) await sleep(5);
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

  test('after kill -9 the process finishing the run numbers its events above every event the killed process delivered', async () => {
    const { store, url, dispose } = await factory.open();
    const dir = testTempDir('noema-seq-');
    try {
      const engine = createEngine(store, { actions: new CountingExecutor(), fanOut: false });
      registerKit(engine);
      const { run_id } = await engine.createRun(actLoopGraph(8, 30));
      const file = join(dir, 'events.jsonl');
      const child = spawn(process.execPath, [WORKER, 'drain'], {
        env: {
          ...process.env,
          NOEMA_DB: url,
          ENGINE_LEASE_MS: '300',
          ENGINE_IDLE_EXIT_MS: '500',
          ENGINE_EVENTS: file,
          ENGINE_EVENTS_RUN: run_id,
        },
        stdio: 'ignore',
      });
      const exited = new Promise((r) => child.on('exit', r));
      for (let i = 0; i < 1000 && readSeqs(file).length < 6; i++) await sleep(10);
      child.kill('SIGKILL');
      await exited;
      const dead = readSeqs(file);
      assert.ok(dead.length >= 6, 'the killed process delivered events before dying');
      assert.notEqual((await engine.getRun(run_id)).status, 'completed', 'killed mid-run');
      const seen: EngineEvent[] = [];
      await engine.subscribe(run_id, (e) => seen.push(e));
      let status = 'running';
      // The dead process's lease (300 ms) must expire before this process can claim the run.
      for (let i = 0; i < 200 && status === 'running'; i++) {
        status = (await engine.continueRun(run_id)).status;
        if (status === 'running') await sleep(25);
      }
      assert.equal(status, 'completed');
      assertIncreasing(seen, 'the finishing process');
      assert.ok(
        seen[0]!.seq > Math.max(...dead),
        `first seq after the crash ${seen[0]!.seq} is above the killed process's last ${Math.max(...dead)}`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
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
    const dir = testTempDir('noema-seq-');
    try {
      const watcher = createEngine(store);
      registerKit(watcher);
      const { run_id } = await watcher.createRun(actLoopGraph(4));
      const remote: Array<EngineEvent & { origin?: string }> = [];
      await watcher.subscribe(run_id, (e) => remote.push(e));
      // The run executes in a real second process, which records every event it delivers in-process.
      const file = join(dir, 'events.jsonl');
      const child = spawn(process.execPath, [WORKER, 'drain'], {
        env: {
          ...process.env,
          NOEMA_DB: url,
          ENGINE_IDLE_EXIT_MS: '200',
          ENGINE_EVENTS: file,
          ENGINE_EVENTS_RUN: run_id,
        },
        stdio: 'ignore',
      });
      assert.equal(await new Promise((r) => child.on('exit', r)), 0);
      const local = readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { seq: number; type: string; pid: number });
      for (let i = 0; i < 200 && remote.length < local.length; i++) await sleep(10);
      await watcher.close();
      assert.ok(local.length > 5);
      assert.deepEqual(
        remote.map((e) => [e.seq, e.type]),
        local.map((e) => [e.seq, e.type]),
        'the same events, with the same seqs, in the same order',
      );
      assert.ok(remote.every((e) => e.origin !== watcher.owner && typeof e.origin === 'string'));
      assertIncreasing(remote, 'received through NOTIFY');
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await dispose();
    }
  });

  test('progress of a long node reaches other processes while it runs, not only at its commit', async (t) => {
    const { store, url, dispose } = await factory.open();
    if (!store.capabilities.supportsListenNotify) {
      await dispose();
      t.skip('this store has no LISTEN/NOTIFY: there is no other process to see the events');
      return;
    }
    const other = await openStore(parseStoreTarget(url));
    try {
      let open: () => void = () => {};
      const gate = new Promise<void>((r) => {
        open = r;
      });
      const runner = createEngine(store);
      runner.register({
        type: 'long',
        async execute(ctx) {
          ctx.update({ tokens: 'hel' });
          ctx.update({ tokens: 'lo' });
          await gate;
          return { kind: 'ok' };
        },
      } as NodeType<never>);
      const watcher = createEngine(other);
      const { run_id } = await runner.createRun({
        entry: 'l',
        nodes: [
          { id: 'l', type: 'long' },
          { id: 'end', type: 'terminal' },
        ],
        connectors: [{ from: 'l', to: 'end' }],
      });
      const local: EngineEvent[] = [];
      const remote: EngineEvent[] = [];
      await runner.subscribe(run_id, (e) => local.push(e));
      await watcher.subscribe(run_id, (e) => remote.push(e));
      const running = runner.continueRun(run_id);
      const live = await (async () => {
        for (let i = 0; i < 300; i++) {
          if (remote.filter((e) => e.type === 'node.updated').length === 2) return true;
          await sleep(10);
        }
        return false;
      })();
      open();
      assert.equal((await running).status, 'completed');
      assert.ok(live, 'both updates arrived while the node was still running');
      for (let i = 0; i < 200 && remote.length < local.length; i++) await sleep(10);
      assert.deepEqual(
        remote.map((e) => e.seq),
        local.map((e) => e.seq),
        'nothing sent twice or lost by the extra flush',
      );
      await watcher.close();
      await runner.close();
    } finally {
      await other.close();
      await dispose();
    }
  });
});
