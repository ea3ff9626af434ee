import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { GraphSpec } from '../../engine/index.ts';
import { startAgentKit } from '../../testing/agent-kit.ts';
import { tracedPrompts } from '../../testing/agent-kit-read.ts';
import { describeEachStore } from '../../testing/each-store.ts';
import { frozenThroughout } from '../../testing/frozen.ts';
import { DEFAULT_COGNITIVE_GRAPH } from './index.ts';
import { SYNTHESIS_GRAPH } from './profiles/synthesis-graph.ts';

describeEachStore('agent graphs', (factory) => {
  test('a definition may replace the cognitive graph with its own over the same node types', async () => {
    await factory.withStore(async ({ store }) => {
      const kit = await startAgentKit(store);
      try {
        const rt = kit.runtime;
        // No emotion node: memory → reasoning → tool → reasoning → end.
        const graph = {
          entry: 'memory',
          nodes: DEFAULT_COGNITIVE_GRAPH.nodes.filter((n) => n.id !== 'emotion'),
          connectors: DEFAULT_COGNITIVE_GRAPH.connectors.filter((c) => c.from !== 'emotion'),
        };
        const { hash } = await rt.putAgentGraph(graph);
        const def = await rt.getAgent(kit.agent_hash);
        const custom = await rt.putAgent({ ...def, label: 'calm-calculator', graph_ref: { hash } });
        const { session_id } = await rt.createSession({ agent_ref: { hash: custom.hash }, user_id: 'ada' });
        const turn = await rt.sendMessage(session_id, { content: 'please add 2 and 3' });
        assert.equal(turn.response, '2 + 3 = 5');
        const nodes = (await tracedPrompts(store, turn.run_id)).map((p) => p.node_id);
        assert.deepEqual(nodes, ['reasoning', 'reasoning'], 'no emotion call in this graph');

        await assert.rejects(
          rt.putAgentGraph({ ...graph, nodes: [...graph.nodes, { id: 'x', type: 'teleport' }] }),
          (err: { code: string; details: { problems: Array<{ code: string }> } }) =>
            err.code === 'GRAPH_INVALID' && err.details.problems.some((p) => p.code === 'UNKNOWN_NODE_TYPE'),
        );
        await assert.rejects(rt.putAgentGraph({ entry: 'a' }), { code: 'INVALID_INPUT' });
      } finally {
        await kit.close();
      }
    });
  });

  test('every turn of an agent runs one frozen graph object, which the engine hashes once', async () => {
    await factory.withStore(async ({ store }) => {
      const kit = await startAgentKit(store);
      try {
        const rt = kit.runtime;
        const graphs: GraphSpec[] = [];
        const createRun = rt.engine.createRun.bind(rt.engine);
        rt.engine.createRun = (graph, opts) => {
          graphs.push(graph);
          return createRun(graph, opts);
        };
        const runIds: string[] = [];
        const { hash } = await rt.putAgentGraph({
          entry: 'memory',
          nodes: DEFAULT_COGNITIVE_GRAPH.nodes.filter((n) => n.id !== 'emotion'),
          connectors: DEFAULT_COGNITIVE_GRAPH.connectors.filter((c) => c.from !== 'emotion'),
        });
        const def = await rt.getAgent(kit.agent_hash);
        const custom = await rt.putAgent({ ...def, label: 'calm-calculator', graph_ref: { hash } });
        for (const agent_hash of [kit.agent_hash, custom.hash]) {
          const { session_id } = await rt.createSession({ agent_ref: { hash: agent_hash }, user_id: 'ada' });
          const first = await rt.sendMessage(session_id, { content: 'please add 2 and 3' });
          const second = await rt.sendMessage(session_id, { content: 'please add 2 and 3' });
          assert.equal(first.response, '2 + 3 = 5');
          assert.equal(second.response, '2 + 3 = 5');
          runIds.push(first.run_id, second.run_id);
        }
        // Each turn's run, and the profile synthesizer's run it queues after it.
        const turns = graphs.filter((g) => g !== SYNTHESIS_GRAPH);
        assert.equal(turns.length, 4);
        assert.equal(graphs.length - turns.length, 4);
        assert.equal(turns[0], turns[1], 'the default graph: one object for both turns');
        assert.equal(turns[2], turns[3], 'a stored graph: one object for both turns');
        assert.notEqual(turns[0], turns[2]);
        assert.equal(turns[2]!.entry, 'memory');
        for (const g of graphs) assert.ok(frozenThroughout(g), 'frozen, nested parts too');
        // The engine stored one graph per agent graph, each under the hash of its content.
        const runs = await Promise.all(runIds.map((id) => rt.engine.getRun(id)));
        assert.equal(new Set(runs.map((r) => r.graph_hash)).size, 2);
      } finally {
        await kit.close();
      }
    });
  });
});
