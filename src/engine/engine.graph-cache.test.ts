/**
 * createRun validates a graph once per engine (node types are never replaced, so it stays valid) and
 * stores it once (a graph row is never changed): later runs of it write the run's rows only.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachStore } from '../testing/each-store.ts';
import { recordingTransactions } from '../testing/recording-store.ts';
import { createEngine } from './create-engine.ts';
import type { GraphSpec, NodeType } from './engine.ts';

describeEachStore('engine: graph validation across runs', (factory) => {
  test('a graph is validated on its first run only; an invalid one is refused every time', async () => {
    await factory.withStore(async ({ store }) => {
      const engine = createEngine(store, { fanOut: false });
      let schemaReads = 0;
      const step: NodeType<{ n: number }> = {
        type: 'counted_step',
        // Read by validation only (a node's config is checked against it).
        get inputSchema() {
          schemaReads++;
          return { type: 'object', required: ['n'], properties: { n: { type: 'integer' } } };
        },
        execute: () => ({ kind: 'ok' }),
      };
      engine.register(step as NodeType<never>);
      const graph = (n: unknown): GraphSpec => ({
        entry: 'a',
        nodes: [
          { id: 'a', type: 'counted_step', config: { n } as never },
          { id: 'end', type: 'terminal' },
        ],
        connectors: [{ from: 'a', to: 'end' }],
      });
      await engine.createRun(graph(1));
      const first = schemaReads;
      assert.ok(first > 0);
      const again = await engine.start(graph(1));
      assert.equal(again.status, 'completed');
      assert.equal(schemaReads, first, 'the same graph is not validated again');
      for (let i = 0; i < 2; i++)
        await assert.rejects(
          engine.createRun(graph('one')),
          (e: Error & { code?: string }) => e.code === 'GRAPH_INVALID',
        );
      await engine.close();
    });
  });

  test('a run of a graph already stored inserts no graph row and reads nothing; a taken run id fails the transaction creating it with CONFLICT', async () => {
    await factory.withStore(async ({ store: inner }) => {
      const { store, txs } = recordingTransactions(inner);
      const engine = createEngine(store, { fanOut: false });
      const graph: GraphSpec = {
        entry: 'end',
        nodes: [{ id: 'end', type: 'terminal' }],
        connectors: [],
      };
      const sqlsOf = async (create: () => Promise<unknown>) => {
        txs.length = 0;
        await create();
        return txs.flat();
      };
      const first = await sqlsOf(() => engine.createRun(graph));
      assert.ok(first.some((sql) => sql.includes('INSERT INTO engine_graphs')));
      const again = await sqlsOf(() => engine.createRun(graph));
      assert.deepEqual(
        again.filter((sql) => sql.includes('engine_graphs') || /^\s*SELECT/.test(sql)),
        [],
        'the second run writes no graph row and reads nothing',
      );
      // Another engine (another process) has not seen the graph stored: it inserts it, as nothing.
      const other = createEngine(store, { fanOut: false });
      const otherRun = await sqlsOf(() => other.createRun(graph));
      assert.ok(otherRun.some((sql) => sql.includes('INSERT INTO engine_graphs')));
      // A run id taken: the transaction creating it fails with CONFLICT (checked by the database where
      // the COMMIT does not wait for the insert's answer), and none of its writes commits.
      const { run_id } = await engine.createRun(graph);
      const other_id = (await engine.createRun(graph)).run_id;
      await assert.rejects(
        store.transaction(async (tx) => {
          tx.write('DELETE FROM engine_runs WHERE run_id = ?', [other_id]);
          await engine.createRun(graph, { run_id, tx });
        }),
        (err: { code?: string }) => {
          assert.equal(err.code, 'CONFLICT', String(err));
          return true;
        },
      );
      const left = await store.all<{ run_id: string }>(
        'SELECT run_id FROM engine_runs WHERE run_id IN (?, ?)',
        [run_id, other_id],
      );
      assert.equal(left.length, 2, 'the caller’s other write rolled back with it');
      assert.equal((await engine.start(graph)).status, 'completed');
      await engine.close();
      await other.close();
    });
  });
});
