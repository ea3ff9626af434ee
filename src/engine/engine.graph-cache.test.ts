/** createRun validates a graph once per engine: node types are never replaced, so it stays valid. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachStore } from '../testing/each-store.ts';
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
});
