import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startAgentKit } from '../../testing/agent-kit.ts';
import { tracedPrompts } from '../../testing/agent-kit-read.ts';
import { describeEachStore } from '../../testing/each-store.ts';
import { DEFAULT_COGNITIVE_GRAPH } from './index.ts';

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
});
