import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ModelScript } from '../../dev/scripted-model/index.ts';
import { INSIGHTS_SCHEMA } from '../../runtimes/agent/reply-schema.ts';
import { startAgentKit } from '../../testing/agent-kit.ts';
import { tracedPrompts } from '../../testing/agent-kit-read.ts';
import { describeEachStore } from '../../testing/each-store.ts';
import { deliveredReply, reasoningReply } from '../../testing/strict-replies.ts';
import { agentReasoningMemory } from './agent-memory.ts';
import { catalogDispatcher } from './catalogs.ts';

const script: ModelScript = {
  rules: [
    {
      match: { any_message_contains: 'Extract user insights' },
      reply: { json: deliveredReply({}, INSIGHTS_SCHEMA) },
    },
    {
      match: { message_matches: '✓ branchmind_notes_commit' },
      reply: { json: reasoningReply({ thinking: 'noted', response: 'Noted for the team.' }) },
    },
  ],
  default: {
    json: reasoningReply({
      thinking: 'write it to the shared memory',
      tool_calls: [
        { name: 'branchmind_notes_commit', args: { doc: 'notes', content: 'the park closes at sunset' } },
      ],
    }),
  },
};

describeEachStore('agents with reasoning memory (branchmind_* tools)', (factory) => {
  test("an agent writes to its workspace's branchable memory, which MCP clients then read", async () => {
    await factory.withStore(async ({ store }) => {
      const kit = await startAgentKit(store, {
        script,
        reasoningMemory: agentReasoningMemory(store),
        definition: {
          emotion: { enabled: false },
          reasoning_memory: { workspace: 'team', tools: ['branchmind_notes_commit', 'branchmind_show'] },
        },
      });
      try {
        const { session_id } = await kit.runtime.createSession({ agent_label: 'calculator', user_id: 'ada' });
        const turn = await kit.runtime.sendMessage(session_id, { content: 'remember the closing time' });
        assert.equal(turn.response, 'Noted for the team.');
        const run = await kit.runtime.engine.getRun(turn.run_id);
        const call = run.contracts.find((c) => c.action_type === 'tool_call')!;
        assert.equal(call.status, 'COMPLETED');
        assert.deepEqual((call.payload as { reasoning_memory: unknown }).reasoning_memory, {
          workspace: 'team',
        });

        // An MCP client reads what the agent wrote.
        const shown = await catalogDispatcher('memory').call(
          'branchmind_show',
          { workspace: 'team', doc: 'notes' },
          { store },
        );
        assert.ok(!shown.isError, JSON.stringify(shown));
        assert.match(JSON.stringify(shown.structuredContent), /the park closes at sunset/);

        // The model sees the tools without the workspace argument (the runtime fills it in).
        const prompt = (await tracedPrompts(store, turn.run_id)).find((p) => p.node_id === 'reasoning')!;
        const line = prompt.messages[0]!.content.split('\n').find((l) =>
          l.startsWith('- branchmind_notes_commit:'),
        )!;
        assert.ok(line);
        assert.doesNotMatch(line, /workspace/);
      } finally {
        await kit.close();
      }
    });
  });

  test('reasoning-memory tools are checked at put time', async () => {
    await factory.withStore(async ({ store }) => {
      const kit = await startAgentKit(store, { reasoningMemory: agentReasoningMemory(store) });
      try {
        const def = await kit.runtime.getAgent(kit.agent_hash);
        const base = { ...def, label: 'mem', tools: [] };
        await assert.rejects(
          kit.runtime.putAgent({
            ...base,
            reasoning_memory: { workspace: 'team', tools: ['branchmind_nope'] },
          }),
          (err: { code: string; details: { available: string[] } }) =>
            err.code === 'INVALID_INPUT' && err.details.available.includes('branchmind_show'),
        );
        await assert.rejects(
          kit.runtime.putAgent({ ...base, reasoning_memory: { workspace: 'team', tools: ['tasks_create'] } }),
          { code: 'INVALID_INPUT' },
        );
      } finally {
        await kit.close();
      }
      const plain = await startAgentKit(store);
      try {
        const def = await plain.runtime.getAgent(plain.agent_hash);
        await assert.rejects(
          plain.runtime.putAgent({
            ...def,
            tools: [],
            reasoning_memory: { workspace: 't', tools: ['branchmind_show'] },
          }),
          { code: 'REASONING_MEMORY_UNAVAILABLE' },
        );
      } finally {
        await plain.close();
      }
    });
  });
});
