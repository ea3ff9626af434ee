/**
 * A step whose nodes say `commitsWithNext` has no commit of its own: its journal row (and what it
 * created) commits first in the run's next transaction — the next execution's action record, the
 * next step, or the run's end. A transaction that carried it and failed leaves it to the next one,
 * which writes it once even when the failed one's COMMIT had landed (its answer lost).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { STORE_BUSY } from '../store/store.ts';
import { describeEachStore } from '../testing/each-store.ts';
import { CountingExecutor } from '../testing/engine-kit.ts';
import { FaultyStore } from '../testing/faulty-store.ts';
import { recordingTransactions } from '../testing/recording-store.ts';
import { createEngine } from './create-engine.ts';
import type { GraphSpec, Json, NodeType } from './engine.ts';
import { EventBus } from './events/bus.ts';
import { RunEvents } from './events/run-events.ts';

/** Writes a note; the step commits with the next one's transaction when `withNext`. */
const note: NodeType<{ withNext: boolean }> = {
  type: 'note',
  execute: (ctx) => ({ kind: 'ok', writes: { log: 'noted' }, commitsWithNext: ctx.config.withNext }),
};

/** Performs one action and logs its result, or fails the run. */
const act: NodeType<{ fail?: boolean }> = {
  type: 'act',
  async execute(ctx) {
    if (ctx.config.fail) return { kind: 'fail', code: 'INTERNAL', message: 'failed on purpose' };
    const c = await ctx.act('tool_call', { tool: 'add', args: { a: 1, b: 2 } } as Json);
    return { kind: 'ok', writes: { log: c.result } };
  },
};

const graph = (withNext: boolean, fail = false): GraphSpec => ({
  entry: 'note',
  channels: { log: { reducer: 'append' } },
  nodes: [
    { id: 'note', type: 'note', config: { withNext } },
    { id: 'act', type: 'act', config: { fail } },
    { id: 'end', type: 'terminal' },
  ],
  connectors: [
    { from: 'note', to: 'act' },
    { from: 'act', to: 'end' },
  ],
});

/**
 * Records a row outside the engine through `ctx.records`, as a node does before a call of its own
 * (synchronously where the store can, as `invokeSource` does); `steal` first hands the run's lease
 * to another owner, and `noticed` then waits until the run's heartbeat has found it lost.
 */
const record: NodeType<{ sync: boolean; steal?: boolean; noticed?: boolean }> = {
  type: 'record',
  async execute(ctx) {
    if (ctx.config.steal) await thief.steal(ctx.run_id);
    if (ctx.config.noticed) await abortedSoon(ctx.signal);
    const sql = 'INSERT INTO side (id) VALUES (1)';
    const done = ctx.config.sync ? ctx.records.runningSync((tx) => tx.run(sql)) : STORE_BUSY;
    if (done === STORE_BUSY) await ctx.records.running((tx) => tx.run(sql));
    return { kind: 'ok', writes: { log: 'recorded' } };
  },
};
/**
 * Two records at once (as two `invokeSource` calls in a `Promise.all` would make): the first carries
 * the step and, inside its transaction, hands the lease to another owner; the second waits for it.
 */
const twoRecords: NodeType<Record<string, never>> = {
  type: 'two_records',
  async execute(ctx) {
    await Promise.allSettled([
      ctx.records.running(async (tx) => {
        await tx.run("UPDATE engine_runs SET lease_owner = 'thief' WHERE run_id = ?", [ctx.run_id]);
        await tx.run('INSERT INTO side (id) VALUES (1)');
      }),
      ctx.records.running((tx) => tx.run('INSERT INTO side (id) VALUES (2)')),
    ]);
    return { kind: 'ok', writes: { log: 'recorded' } };
  },
};

/** Set by a test: moves a run's lease to another owner. */
const thief = { steal: async (_run_id: string): Promise<void> => {} };

/** Resolves once `signal` aborts (bounded: a heartbeat that never notices fails the test). */
function abortedSoon(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the lease loss was never noticed')), 10_000);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

const recordGraph = (
  sync: boolean,
  lost: { steal?: boolean; noticed?: boolean } = {},
  withNext = true,
): GraphSpec => ({
  entry: 'note',
  channels: { log: { reducer: 'append' } },
  nodes: [
    { id: 'note', type: 'note', config: { withNext } },
    { id: 'record', type: 'record', config: { sync, ...lost } },
    { id: 'end', type: 'terminal' },
  ],
  connectors: [
    { from: 'note', to: 'record' },
    { from: 'record', to: 'end' },
  ],
});

const isJournal = (sql: string) => sql.startsWith('INSERT INTO engine_journal');
const isContractInsert = (sql: string) => sql.startsWith('INSERT INTO engine_contracts');

describeEachStore('engine: steps that commit with the next transaction', (factory) => {
  for (const withNext of [true, false]) {
    test(`a step ${withNext ? 'with' : 'without'} commitsWithNext ${withNext ? 'commits in the next action record' : 'commits on its own'}`, async () => {
      await factory.withStore(async ({ store: raw }) => {
        const { store, txs } = recordingTransactions(raw);
        const engine = createEngine(store, { actions: new CountingExecutor(), fanOut: false });
        engine.register(note as NodeType<never>);
        engine.register(act as NodeType<never>);
        const out = await engine.start(graph(withNext));
        assert.equal(out.status, 'completed', JSON.stringify(out.error));
        assert.deepEqual((await engine.getRun(out.run_id)).state.log, ['noted', 3]);
        const created = txs.find((t) => t.some(isContractInsert))!;
        // The note's step row, then the action's own transition row, in the action's first commit.
        assert.equal(created.filter(isJournal).length, withNext ? 2 : 1);
        assert.equal(
          txs.filter((t) => t.length === 1 && isJournal(t[0]!)).length,
          withNext ? 0 : 1,
          'a commit holding only the step row',
        );
        await engine.close();
      });
    });
  }

  for (const sync of [false, true]) {
    test(`a record a node makes through ctx.records${sync ? ' (synchronously)' : ''} commits the carried step with it`, async () => {
      await factory.withStore(async ({ store: raw }) => {
        await raw.run('CREATE TABLE side (id INTEGER PRIMARY KEY)');
        const { store, txs } = recordingTransactions(raw);
        const engine = createEngine(store, { fanOut: false });
        engine.register(note as NodeType<never>);
        engine.register(record as NodeType<never>);
        const out = await engine.start(recordGraph(sync));
        assert.equal(out.status, 'completed', JSON.stringify(out.error));
        assert.deepEqual((await engine.getRun(out.run_id)).state.log, ['noted', 'recorded']);
        const withSide = txs.filter((t) => t.some((sql) => sql.startsWith('INSERT INTO side')));
        assert.equal(withSide.length, 1);
        assert.deepEqual(
          withSide[0]!
            .filter((sql) => isJournal(sql) || sql.startsWith('INSERT INTO side'))
            .map((sql) => sql.slice(0, 24)),
          ['INSERT INTO engine_journ', 'INSERT INTO side (id) VA'],
          'the note step’s row first, then the record, in one transaction',
        );
        assert.ok(
          !withSide[0]!.some((sql) => sql.startsWith('SELECT 1 AS held')),
          'the carried step’s writes check the lease: no lease query of its own',
        );
        await engine.close();
      });
    });

    for (const carried of [true, false]) {
      test(`a record through ctx.records${sync ? ' (synchronously)' : ''} after the lease was lost writes nothing (${carried ? 'a step carried' : 'no step carried'})`, async () => {
        await factory.withStore(async ({ store }) => {
          await store.run('CREATE TABLE side (id INTEGER PRIMARY KEY)');
          thief.steal = async (run_id) => {
            await store.run("UPDATE engine_runs SET lease_owner = 'thief' WHERE run_id = ?", [run_id]);
          };
          const engine = createEngine(store, { fanOut: false });
          engine.register(note as NodeType<never>);
          engine.register(record as NodeType<never>);
          const out = await engine.start(recordGraph(sync, { steal: true }, carried));
          assert.equal(out.status, 'running');
          assert.equal(out.error?.code, 'LEASE_LOST');
          assert.deepEqual(await store.all('SELECT id FROM side'), [], 'the record was not written');
          await engine.close();
        });
      });
    }

    test(`a record through ctx.records${sync ? ' (synchronously)' : ''} once the run knows its lease is lost opens no transaction`, async () => {
      await factory.withStore(async ({ store: raw }) => {
        await raw.run('CREATE TABLE side (id INTEGER PRIMARY KEY)');
        const { store, txs } = recordingTransactions(raw);
        let before = -1;
        thief.steal = async (run_id) => {
          await raw.run("UPDATE engine_runs SET lease_owner = 'thief' WHERE run_id = ?", [run_id]);
          before = txs.length;
        };
        // A short lease: the heartbeat (every third of it) soon finds the lease gone.
        const engine = createEngine(store, { fanOut: false, leaseMs: 90 });
        engine.register(note as NodeType<never>);
        engine.register(record as NodeType<never>);
        const out = await engine.start(recordGraph(sync, { steal: true, noticed: true }, false));
        assert.equal(out.error?.code, 'LEASE_LOST');
        assert.ok(before >= 0);
        assert.deepEqual(
          txs.slice(before).filter((t) => !t.every((sql) => sql.startsWith('UPDATE engine_runs'))),
          [],
          'no transaction but heartbeats after the lease was lost',
        );
        await engine.close();
      });
    });
  }

  test('of two records in flight at once, the one queued behind the transaction that carried the step checks the lease itself', async () => {
    await factory.withStore(async ({ store }) => {
      await store.run('CREATE TABLE side (id INTEGER PRIMARY KEY)');
      const engine = createEngine(store, { fanOut: false });
      engine.register(note as NodeType<never>);
      engine.register(twoRecords as NodeType<never>);
      const out = await engine.start({
        ...recordGraph(false),
        nodes: [
          { id: 'note', type: 'note', config: { withNext: true } },
          { id: 'record', type: 'two_records', config: {} },
          { id: 'end', type: 'terminal' },
        ],
      });
      assert.equal(out.error?.code, 'LEASE_LOST');
      const side = (await store.all<{ id: number }>('SELECT id FROM side ORDER BY id')).map((r) =>
        Number(r.id),
      );
      assert.deepEqual(side, [1], 'the second record was not written after the lease was lost');
      await engine.close();
    });
  });

  test('a carried step commits with the run’s end when the next node fails the run', async () => {
    await factory.withStore(async ({ store }) => {
      const engine = createEngine(store, { actions: new CountingExecutor(), fanOut: false });
      engine.register(note as NodeType<never>);
      engine.register(act as NodeType<never>);
      const out = await engine.start(graph(true, true));
      assert.equal(out.status, 'failed');
      const run = await engine.getRun(out.run_id);
      assert.equal(run.step, 1, 'the note step is in the journal');
      assert.deepEqual(run.state.log, ['noted']);
      await engine.close();
    });
  });

  test('a carried step whose transaction failed is written by the next one, once, even if that COMMIT had landed', async () => {
    await factory.withStore(async ({ store: raw }) => {
      await raw.run('CREATE TABLE carried (id INTEGER PRIMARY KEY)');
      const store = new FaultyStore(raw);
      const events = new RunEvents(new EventBus(store, 'test', false), 'run').claimed(1);
      const insert = (id: number) => ({
        sql: 'INSERT INTO carried (id) VALUES (?)',
        params: [id],
        miss: null,
      });
      const landed = (id: number) => ({ sql: 'SELECT 1 AS x FROM carried WHERE id = ?', params: [id] });
      for (const [at, step, own] of [
        ['commit', 1, 10],
        ['after-commit', 2, 20],
      ] as const) {
        events.carry({ writes: [insert(step)], landed: landed(step), emit: null });
        store.arm({ transaction: 1, at });
        await assert.rejects(
          events.transaction((tx) => tx.run('INSERT INTO carried (id) VALUES (?)', [own])),
        );
        store.disarm();
        await events.transaction((tx) => tx.run('INSERT INTO carried (id) VALUES (?)', [own + 1]));
      }
      const rows = await raw.all<{ id: number }>('SELECT id FROM carried ORDER BY id');
      assert.deepEqual(
        rows.map((r) => Number(r.id)),
        [1, 2, 11, 20, 21],
      );
    });
  });
});
