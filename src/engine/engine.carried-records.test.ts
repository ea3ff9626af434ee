/**
 * A record a node carries (`ctx.records.carry`) has no commit of its own: it commits first in the
 * run's next transaction — the node's next record, the step, the run's end — with its `node.updated`
 * event emitted when it commits. It does not check the lease itself, so a record after it still
 * does. `ctx.mayRepeat` tells a node whether an earlier execution of its step may have recorded.
 * A record asked `deferred` (one that precedes no call) commits without waiting for the disk.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachStore } from '../testing/each-store.ts';
import { recordingTransactions } from '../testing/recording-store.ts';
import { createEngine } from './create-engine.ts';
import type { EngineEvent, GraphSpec, Json, NodeType } from './engine.ts';

/** Carries a row, then (unless `carryOnly`) records another; `steal` first hands the lease away. */
const carrier: NodeType<{ carryOnly?: boolean; steal?: boolean }> = {
  type: 'carrier',
  async execute(ctx) {
    ctx.records.carry([{ sql: 'INSERT INTO side (id) VALUES (?) ON CONFLICT DO NOTHING', params: [1] }], {
      carried: true,
    });
    if (ctx.config.steal) await thief.steal(ctx.run_id);
    if (!ctx.config.carryOnly) await ctx.records.running((tx) => tx.run('INSERT INTO side (id) VALUES (2)'));
    return { kind: 'ok', writes: { log: 'carried' }, commitsWithNext: true };
  },
};

/** Records a row as before a call, then one as after its calls (`deferred`). */
const recorder: NodeType<Json> = {
  type: 'recorder',
  async execute(ctx) {
    await ctx.records.running((tx) => tx.run('INSERT INTO side (id) VALUES (1)'));
    await ctx.records.running((tx) => tx.run('INSERT INTO side (id) VALUES (2)'), { durability: 'deferred' });
    return { kind: 'ok', writes: { log: 'recorded' } };
  },
};

/** Logs whether its step may repeat an earlier execution. */
const repeat: NodeType<Json> = {
  type: 'repeat',
  execute: (ctx) => ({ kind: 'ok', writes: { log: ctx.mayRepeat } }),
};

const thief = { steal: async (_run_id: string): Promise<void> => {} };

const graph = (config: { carryOnly?: boolean; steal?: boolean }): GraphSpec => ({
  entry: 'carrier',
  channels: { log: { reducer: 'append' } },
  nodes: [
    { id: 'carrier', type: 'carrier', config },
    { id: 'end', type: 'terminal' },
  ],
  connectors: [{ from: 'carrier', to: 'end' }],
});

const sides = (txs: string[][]) => txs.filter((t) => t.some((sql) => sql.startsWith('INSERT INTO side')));

describeEachStore('engine: records a node carries', (factory) => {
  test('a carried record commits first in the transaction of the record after it, its event with it', async () => {
    await factory.withStore(async ({ store: raw }) => {
      await raw.run('CREATE TABLE side (id INTEGER PRIMARY KEY)');
      const { store, txs } = recordingTransactions(raw);
      const engine = createEngine(store, { fanOut: false });
      engine.register(carrier as NodeType<never>);
      const seen: Array<{ data: Json; rows: number }> = [];
      let reads: Promise<void> = Promise.resolve();
      const { run_id } = await engine.createRun(graph({}));
      await engine.subscribe(run_id, (e: EngineEvent) => {
        if (e.type !== 'node.updated') return;
        reads = reads.then(async () => {
          const rows = (await raw.all('SELECT id FROM side')).length;
          seen.push({ data: e.data, rows });
        });
      });
      const out = await engine.continueRun(run_id);
      assert.equal(out.status, 'completed', JSON.stringify(out.error));
      await reads;
      const written = sides(txs);
      assert.equal(written.length, 1, 'one transaction writes both rows');
      assert.deepEqual(
        written[0]!.filter((sql) => sql.startsWith('INSERT INTO side')).map((sql) => sql.slice(0, 30)),
        ['INSERT INTO side (id) VALUES (', 'INSERT INTO side (id) VALUES ('],
      );
      assert.ok(
        written[0]!.some((sql) => sql.startsWith('SELECT 1 AS held')),
        'a carried record does not check the lease: the record after it does',
      );
      // Delivered once its commit landed: a reader finds the carried row.
      assert.deepEqual(seen, [{ data: { carried: true }, rows: 2 }]);
      await engine.close();
    });
  });

  test('a carried record with no record after it commits with the step', async () => {
    await factory.withStore(async ({ store: raw }) => {
      await raw.run('CREATE TABLE side (id INTEGER PRIMARY KEY)');
      const { store, txs } = recordingTransactions(raw);
      const engine = createEngine(store, { fanOut: false });
      engine.register(carrier as NodeType<never>);
      const out = await engine.start(graph({ carryOnly: true }));
      assert.equal(out.status, 'completed', JSON.stringify(out.error));
      const written = sides(txs);
      assert.equal(written.length, 1);
      assert.ok(written[0]!.some((sql) => sql.startsWith('INSERT INTO engine_journal')));
      assert.deepEqual(
        (await raw.all<{ id: number }>('SELECT id FROM side')).map((r) => Number(r.id)),
        [1],
      );
      await engine.close();
    });
  });

  test('a record after a carried one, once the lease was lost, writes neither', async () => {
    await factory.withStore(async ({ store }) => {
      await store.run('CREATE TABLE side (id INTEGER PRIMARY KEY)');
      thief.steal = async (run_id) => {
        await store.run("UPDATE engine_runs SET lease_owner = 'thief' WHERE run_id = ?", [run_id]);
      };
      const engine = createEngine(store, { fanOut: false });
      engine.register(carrier as NodeType<never>);
      const out = await engine.start(graph({ steal: true }));
      thief.steal = async () => {};
      assert.equal(out.status, 'running');
      assert.equal(out.error?.code, 'LEASE_LOST');
      assert.deepEqual(await store.all('SELECT id FROM side'), []);
      await engine.close();
    });
  });

  test("mayRepeat holds for a claim's first step only, and for none on its creator's first claim", async () => {
    await factory.withStore(async ({ store }) => {
      const engine = createEngine(store, { fanOut: false });
      engine.register(repeat as NodeType<never>);
      const chain: GraphSpec = {
        entry: 'a',
        channels: { log: { reducer: 'append' } },
        nodes: [
          { id: 'a', type: 'repeat' },
          { id: 'b', type: 'repeat' },
          { id: 'c', type: 'repeat' },
          { id: 'end', type: 'terminal' },
        ],
        connectors: [
          { from: 'a', to: 'b' },
          { from: 'b', to: 'c' },
          { from: 'c', to: 'end' },
        ],
      };
      // Created and executed here: nothing can have executed before its first step.
      const out = await engine.start(chain);
      assert.equal(out.status, 'completed', JSON.stringify(out.error));
      assert.deepEqual((await engine.getRun(out.run_id)).state.log, [false, false, false]);
      // Created by another engine: its first step here may repeat what another process did.
      const creator = createEngine(store, { fanOut: false });
      creator.register(repeat as NodeType<never>);
      const { run_id } = await creator.createRun(chain);
      const claimed = await engine.continueRun(run_id);
      assert.equal(claimed.status, 'completed', JSON.stringify(claimed.error));
      assert.deepEqual((await engine.getRun(run_id)).state.log, [true, false, false]);
      await creator.close();
      await engine.close();
    });
  });

  test('a record asked deferred commits deferred; any other waits for the disk', async () => {
    await factory.withStore(async ({ store: raw }) => {
      await raw.run('CREATE TABLE side (id INTEGER PRIMARY KEY)');
      const { store, recorded } = recordingTransactions(raw);
      const engine = createEngine(store, { fanOut: false });
      engine.register(recorder as NodeType<never>);
      const out = await engine.start({
        entry: 'r',
        channels: { log: { reducer: 'append' } },
        nodes: [
          { id: 'r', type: 'recorder' },
          { id: 'end', type: 'terminal' },
        ],
        connectors: [{ from: 'r', to: 'end' }],
      });
      assert.equal(out.status, 'completed', JSON.stringify(out.error));
      const written = recorded.filter((t) => t.sqls.some((sql) => sql.startsWith('INSERT INTO side')));
      assert.deepEqual(
        written.map((t) => [t.sqls.find((sql) => sql.startsWith('INSERT INTO side')), t.durability]),
        [
          ['INSERT INTO side (id) VALUES (1)', 'immediate'],
          ['INSERT INTO side (id) VALUES (2)', 'deferred'],
        ],
      );
      await engine.close();
    });
  });
});
