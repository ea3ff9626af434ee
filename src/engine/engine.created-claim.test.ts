/**
 * A run's first claim by the engine that created it reads none of its journal, snapshots or
 * contracts (nothing can have written them since): its state is the input it was created with.
 * Another engine's claim, or a later claim, reads them as before. A frozen graph is hashed once.
 * A claim its caller asks deferred commits without waiting for the disk; any other waits. A run
 * created claimed (`claim`) is running from the transaction that creates it and has no claim of its
 * own; left by its creator, it is another engine's once its lease passes.
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import type { Queryable } from '../store/store.ts';
import { describeEachStore } from '../testing/each-store.ts';
import { registerKit } from '../testing/engine-kit.ts';
import { recordingTransactions } from '../testing/recording-store.ts';
import { createEngine } from './create-engine.ts';
import type { GraphSpec } from './engine.ts';

const GRAPH: GraphSpec = {
  entry: 'a',
  channels: { messages: { reducer: 'append' }, seed: { reducer: 'value' } },
  nodes: [
    { id: 'a', type: 'append', config: { text: 'one' } },
    { id: 'b', type: 'context' },
    { id: 'end', type: 'terminal' },
  ],
  connectors: [
    { from: 'a', to: 'b' },
    { from: 'b', to: 'end' },
  ],
};

const CLAIM_UPDATE = "UPDATE engine_runs SET status = 'running'";

/** The recorded transactions that claim a run. */
const claimsIn = <T extends { sqls: string[] }>(recorded: readonly T[]): T[] =>
  recorded.filter((t) => t.sqls.some((q) => q.trimStart().startsWith(CLAIM_UPDATE)));

/** The run's attempts as [attempt, worker]. */
async function attempts(q: Queryable, run_id: string): Promise<Array<[number, string]>> {
  const rows = await q.all<{ attempt: number; worker_id: string }>(
    `SELECT a.attempt, a.worker_id FROM engine_run_attempts a JOIN engine_runs r ON r.run_pk = a.run_pk
      WHERE r.run_id = ? ORDER BY a.attempt`,
    [run_id],
  );
  return rows.map((r) => [Number(r.attempt), r.worker_id]);
}

const runReads = (reads: string[]) =>
  reads.filter((q) => /FROM engine_(journal|snapshots|contracts)\b/.test(q)).length;

describeEachStore('engine: a run claimed by the engine that created it', (factory) => {
  test('its first claim reads no journal, snapshot or contract, and runs from its input', async () =>
    factory.withStore(async ({ store: raw }) => {
      const { store, reads } = recordingTransactions(raw);
      const here = createEngine(store, { fanOut: false });
      const elsewhere = createEngine(store, { fanOut: false });
      registerKit(here);
      registerKit(elsewhere);
      try {
        const input = { messages: 'zero', seed: { n: 1 } };
        const before = runReads(reads);
        const started = await here.start(GRAPH, { input });
        assert.equal(started.status, 'completed');
        assert.equal(runReads(reads), before, 'no read of the run at its first claim here');
        const state = (await here.getRun(started.run_id)).state;
        assert.deepEqual(state.messages, ['zero', 'one']);
        assert.deepEqual(state.seed, { n: 1 });

        // The same run created by one engine and claimed by another: read, as any claim after a crash.
        const { run_id } = await here.createRun(GRAPH, { input });
        const mid = runReads(reads);
        const other = await elsewhere.continueRun(run_id);
        assert.equal(other.status, 'completed');
        assert.ok(runReads(reads) > mid, 'a claim by another engine reads the run');
        assert.deepEqual((await here.getRun(run_id)).state, (await here.getRun(started.run_id)).state);
      } finally {
        await here.close();
        await elsewhere.close();
      }
    }));

  test('a claim asked deferred commits deferred; a claim asked nothing waits for the disk', async () =>
    factory.withStore(async ({ store: raw }) => {
      const { store, recorded } = recordingTransactions(raw);
      const engine = createEngine(store, { fanOut: false });
      registerKit(engine);
      try {
        const a = await engine.createRun(GRAPH, { reserve: true });
        assert.equal((await engine.continueRun(a.run_id, { durability: 'deferred' })).status, 'completed');
        const b = await engine.createRun(GRAPH, { reserve: true });
        assert.equal((await engine.continueRun(b.run_id)).status, 'completed');
        assert.deepEqual(
          claimsIn(recorded).map((t) => t.durability),
          ['deferred', 'immediate'],
        );
      } finally {
        await engine.close();
      }
    }));

  test('a run created claimed is running from its creation, its first attempt recorded there, and executes with no claim of its own', async () =>
    factory.withStore(async ({ store: raw }) => {
      const { store, recorded } = recordingTransactions(raw);
      const engine = createEngine(store, { fanOut: false });
      registerKit(engine);
      try {
        const { run_id } = await engine.createRun(GRAPH, { claim: true, input: { messages: 'zero' } });
        const creation = recorded.at(-1)!;
        assert.ok(creation.sqls.some((q) => q.includes('INSERT INTO engine_run_attempts')));
        const row = await raw.get<{ status: string; lease_owner: string; event_epoch: number }>(
          'SELECT status, lease_owner, event_epoch FROM engine_runs WHERE run_id = ?',
          [run_id],
        );
        assert.deepEqual(
          { status: row!.status, lease_owner: row!.lease_owner, event_epoch: Number(row!.event_epoch) },
          { status: 'running', lease_owner: engine.owner, event_epoch: 1 },
        );
        const before = recorded.length;
        assert.equal((await engine.continueRun(run_id)).status, 'completed');
        assert.deepEqual(claimsIn(recorded.slice(before)), [], 'a claim of its own');
        assert.deepEqual(await attempts(raw, run_id), [[1, engine.owner]]);
        assert.deepEqual((await engine.getRun(run_id)).state.messages, ['zero', 'one']);
      } finally {
        await engine.close();
      }
    }));

  test('a run created claimed and never continued by its creator is another engine’s once its lease passes', async () =>
    factory.withStore(async ({ store }) => {
      const creator = createEngine(store, { fanOut: false, leaseMs: 300 });
      const other = createEngine(store, { fanOut: false });
      registerKit(creator);
      registerKit(other);
      try {
        const { run_id } = await creator.createRun(GRAPH, { claim: true });
        assert.equal(
          (await other.continueRun(run_id)).status,
          'running',
          'its creator’s while the lease holds',
        );
        await delay(400);
        assert.equal((await other.continueRun(run_id)).status, 'completed');
        assert.deepEqual(await attempts(store, run_id), [
          [1, creator.owner],
          [2, other.owner],
        ]);
      } finally {
        await creator.close();
        await other.close();
      }
    }));

  test('a run created claimed and cancelled before it executed is not executed: its outcome is cancelled', async () =>
    factory.withStore(async ({ store }) => {
      const engine = createEngine(store, { fanOut: false });
      registerKit(engine);
      try {
        const { run_id } = await engine.createRun(GRAPH, { claim: true });
        await engine.cancel(run_id);
        assert.equal((await engine.continueRun(run_id)).status, 'cancelled');
        assert.deepEqual((await engine.getRun(run_id)).state.messages ?? [], []);
      } finally {
        await engine.close();
      }
    }));
});
