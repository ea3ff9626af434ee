import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Store } from '../store/store.ts';
import { describeEachStore } from '../testing/each-store.ts';
import { appendGraph, humanGraph, registerKit } from '../testing/engine-kit.ts';
import { waitUntil } from '../testing/wait.ts';
import { createEngine } from './create-engine.ts';
import type { GraphSpec, NodeType, RunOutcome } from './engine.ts';
import { startRunReclaimer } from './reclaimer.ts';
import { runAttempts } from './run/attempts.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What a process that died mid-run leaves: the run `running` under a lease that has expired. */
async function abandon(store: Store, run_id: string): Promise<void> {
  await store.run(
    `UPDATE engine_runs SET status = 'running', lease_owner = 'dead-process', lease_expires_at = ? WHERE run_id = ?`,
    [Date.now() - 1, run_id],
  );
}

async function statusOf(store: Store, run_id: string): Promise<string | undefined> {
  return (await store.get<{ status: string }>('SELECT status FROM engine_runs WHERE run_id = ?', [run_id]))
    ?.status;
}

describeEachStore('engine run reclaiming', (factory) => {
  test('claimNext with queuedForMs leaves a fresh queued run to its creator and takes one left queued', async () =>
    factory.withStore(async ({ store }) => {
      let now = 1_000_000;
      const engine = createEngine(store, { fanOut: false, now: () => now });
      registerKit(engine);
      const { run_id } = await engine.createRun(appendGraph);
      assert.equal(await engine.claimNext({ queuedForMs: 5_000 }), null, 'queued a moment ago');
      now += 5_000;
      const outcome = await engine.claimNext({ queuedForMs: 5_000 });
      assert.equal(outcome?.run_id, run_id);
      assert.equal(outcome?.status, 'completed');
      const fresh = await engine.createRun(appendGraph);
      assert.equal((await engine.claimNext())?.run_id, fresh.run_id, 'without the option: at once');
    }));

  test('claimableElsewhere tells of claimable runs only another runtime’s engine could execute', async () =>
    factory.withStore(async ({ store }) => {
      const mine = createEngine(store, { fanOut: false });
      registerKit(mine);
      const other = createEngine(store, { fanOut: false });
      other.register({ type: 'foreign', execute: () => ({ kind: 'ok' }) } as NodeType<never>);
      await mine.createRun(appendGraph);
      assert.equal(await mine.claimableElsewhere(), false, 'a run of its own types is not elsewhere');
      const foreign = await other.createRun({
        entry: 'f',
        nodes: [
          { id: 'f', type: 'foreign' },
          { id: 'end', type: 'terminal' },
        ],
        connectors: [{ from: 'f', to: 'end' }],
      });
      assert.equal(await mine.claimableElsewhere({ queuedForMs: 60_000 }), false, 'queued a moment ago');
      assert.equal(await mine.claimableElsewhere(), true);
      assert.equal((await other.claimNext())?.run_id, foreign.run_id);
      assert.equal(await mine.claimableElsewhere(), false, 'finished: nothing left for the other engine');
    }));

  test('a claimed run goes through the registered drivers, the last registered outermost', async () =>
    factory.withStore(async ({ store }) => {
      const engine = createEngine(store, { fanOut: false });
      registerKit(engine);
      const seen: string[] = [];
      engine.driveClaimed(async (run_id, execute) => {
        seen.push(`inner:${run_id}`);
        const outcome = await execute();
        seen.push(`inner closed ${outcome.status}`);
        return outcome;
      });
      const unregister = engine.driveClaimed(async (_run_id, execute) => {
        seen.push('outer');
        // Calling execute twice executes the run once.
        const [a, b] = await Promise.all([execute(), execute()]);
        assert.equal(a, b);
        return a;
      });
      const { run_id } = await engine.createRun(appendGraph);
      await abandon(store, run_id);
      const outcome = await engine.claimNext();
      assert.equal(outcome?.status, 'completed');
      assert.deepEqual(seen, ['outer', `inner:${run_id}`, 'inner closed completed']);
      const journal = await store.get<{ n: number }>('SELECT COUNT(*) AS n FROM engine_journal');
      unregister();
      seen.length = 0;
      const second = await engine.createRun(appendGraph);
      await engine.claimNext();
      assert.deepEqual(seen, [`inner:${second.run_id}`, 'inner closed completed']);
      assert.ok(Number(journal?.n) > 0);
      // continueRun is the caller's own: no driver sees it.
      seen.length = 0;
      await engine.start(appendGraph);
      assert.deepEqual(seen, []);
    }));

  test('a driver that fails before executing gives the lease up: the run is claimable at once', async () =>
    factory.withStore(async ({ store }) => {
      const engine = createEngine(store, { fanOut: false, leaseMs: 60_000 });
      registerKit(engine);
      const off = engine.driveClaimed(async () => {
        throw new Error('the driver could not read its rows');
      });
      const { run_id } = await engine.createRun(appendGraph);
      await assert.rejects(engine.claimNext(), /could not read its rows/);
      assert.equal(await statusOf(store, run_id), 'running');
      off();
      const outcome = await engine.claimNext();
      assert.equal(outcome?.run_id, run_id, 'not held for the 60 s lease');
      assert.equal(outcome?.status, 'completed');
    }));

  test('cancel commits the caller’s writes in its transaction, and a failing write cancels nothing', async () =>
    factory.withStore(async ({ store }) => {
      await store.run('CREATE TABLE cancel_marks (run_id TEXT NOT NULL)');
      const engine = createEngine(store, { fanOut: false });
      registerKit(engine);
      const waiting = await engine.start(humanGraph);
      await assert.rejects(
        engine.cancel(waiting.run_id, {
          async writes(tx) {
            await tx.run('INSERT INTO cancel_marks (run_id) VALUES (?)', [waiting.run_id]);
            throw new Error('the runtime write failed');
          },
        }),
        /the runtime write failed/,
      );
      assert.equal(await statusOf(store, waiting.run_id), 'waiting');
      assert.equal((await store.all('SELECT * FROM cancel_marks')).length, 0);
      await engine.cancel(waiting.run_id, {
        writes: (tx) =>
          tx.run('INSERT INTO cancel_marks (run_id) VALUES (?)', [waiting.run_id]).then(() => {}),
      });
      assert.equal(await statusOf(store, waiting.run_id), 'cancelled');
      const marks = await store.all<{ run_id: string }>('SELECT run_id FROM cancel_marks');
      assert.deepEqual(
        marks.map((m) => m.run_id),
        [waiting.run_id],
      );
    }));

  test('the reclaimer finishes runs whose owner died, at most `concurrency` at once, and stops', async () =>
    factory.withStore(async ({ store }) => {
      let inFlight = 0;
      let most = 0;
      const engine = createEngine(store, { fanOut: false });
      engine.register({
        type: 'slow',
        async execute() {
          inFlight++;
          most = Math.max(most, inFlight);
          await sleep(40);
          inFlight--;
          return { kind: 'ok', writes: { messages: 'slow' } };
        },
      } as NodeType<never>);
      const graph: GraphSpec = {
        entry: 's',
        channels: { messages: { reducer: 'append' } },
        nodes: [
          { id: 's', type: 'slow' },
          { id: 'end', type: 'terminal' },
        ],
        connectors: [{ from: 's', to: 'end' }],
      };
      const runs: string[] = [];
      for (let i = 0; i < 6; i++) {
        const { run_id } = await engine.createRun(graph);
        await abandon(store, run_id);
        runs.push(run_id);
      }
      const outcomes: RunOutcome[] = [];
      const reclaimer = startRunReclaimer([engine], {
        intervalMs: 20,
        concurrency: 2,
        onOutcome: (o) => outcomes.push(o),
        onError: (err) => assert.fail(String(err)),
      });
      try {
        await waitUntil('every abandoned run completed', () => outcomes.length === 6);
        assert.deepEqual(outcomes.map((o) => o.run_id).sort(), [...runs].sort());
        assert.ok(outcomes.every((o) => o.status === 'completed'));
        assert.equal(most, 2, 'two runs at once, never more');
      } finally {
        reclaimer.stop();
      }
      const late = await engine.createRun(graph);
      await abandon(store, late.run_id);
      await sleep(100);
      assert.equal(await statusOf(store, late.run_id), 'running', 'a stopped reclaimer claims nothing');
      await engine.close();
    }));
  test('continueRun of a run claimNext took here, before its drivers executed it, joins it: one claim, one loop', async () =>
    factory.withStore(async ({ store }) => {
      const engine = createEngine(store, { fanOut: false });
      registerKit(engine);
      const { run_id } = await engine.createRun(appendGraph);
      await abandon(store, run_id);
      const gate = Promise.withResolvers<void>();
      let entered = () => {};
      const inDriver = new Promise<void>((resolve) => {
        entered = resolve;
      });
      let executed = 0;
      engine.driveClaimed(async (_id, execute) => {
        entered();
        await gate.promise; // the driver's own reads, during which the run is claimed but not executing
        executed++;
        return execute();
      });
      const claimed = engine.claimNext();
      await inDriver;
      // Our lease would let continueRun claim it again and start a second loop.
      const continued = engine.continueRun(run_id);
      gate.resolve();
      const [a, b] = await Promise.all([claimed, continued]);
      assert.equal(a?.status, 'completed');
      assert.equal(b.status, 'completed');
      assert.equal(executed, 1);
      const attempts = await runAttempts(store, run_id);
      assert.equal(attempts.length, 1, `claimed once here: ${JSON.stringify(attempts)}`);
      await engine.close();
    }));
  test('a run its creator reserves is not claimed by another process until the reservation passes', async () =>
    factory.withStore(async ({ store }) => {
      let now = 1_000_000;
      const creator = createEngine(store, { fanOut: false, now: () => now, leaseMs: 5_000 });
      const worker = createEngine(store, { fanOut: false, now: () => now });
      registerKit(creator);
      registerKit(worker);
      const reserved = await creator.createRun(appendGraph, { reserve: true });
      const open = await creator.createRun(appendGraph);
      // A worker claiming queued runs at once takes the unreserved one only.
      assert.equal((await worker.claimNext())?.run_id, open.run_id);
      assert.equal(await worker.claimNext(), null, 'reserved to its creator');
      assert.equal(
        (await worker.continueRun(reserved.run_id)).status,
        'queued',
        'not claimable by id either',
      );
      // Its creator continues it.
      assert.equal((await creator.continueRun(reserved.run_id)).status, 'completed');
      // A creator that dies before executing its run leaves it to others once the reservation passed.
      const orphan = await creator.createRun(appendGraph, { reserve: 2_000 });
      now += 1_999;
      assert.equal(await worker.claimNext(), null);
      now += 2;
      const taken = await worker.claimNext();
      assert.equal(taken?.run_id, orphan.run_id);
      assert.equal(taken?.status, 'completed');
    }));
});
