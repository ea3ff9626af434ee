import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ModelScript } from '../../dev/scripted-model/index.ts';
import { loadScript } from '../../dev/scripted-model/index.ts';
import { getSourceInvocation } from '../../sources/index.ts';
import { CALCULATOR_SCRIPT_PATH, startAgentKit } from '../../testing/agent-kit.ts';
import { describeEachStore } from '../../testing/each-store.ts';
import { recordingTransactions } from '../../testing/recording-store.ts';
import { reasoningReply } from '../../testing/strict-replies.ts';

type Row = {
  source_invocation_id: string;
  workflow_node_id: string | null;
  model_output_kind: string | null;
};

describeEachStore('agent generations: model_output_kind on every trace row', (factory) => {
  test('each generation is marked with its accepted kind, or rejected with the reason', async () => {
    await factory.withStore(async ({ store }) => {
      const base = loadScript(CALCULATOR_SCRIPT_PATH);
      const script: ModelScript = {
        ...base,
        rules: [
          // Valid under the schema sent (which has no bounds), refused by the contract (0..1).
          {
            match: { any_message_contains: 'Detect the emotion' },
            times: 1,
            reply: { json: { emotion: 'elated', intensity: 602, modulation: 'cheer' } },
          },
          // Not JSON at all: the source fails it (non_json).
          { match: { any_message_contains: 'WORKING MEMORY' }, times: 1, reply: { text: 'let me think' } },
          // Valid JSON naming a tool the agent does not have.
          {
            match: { any_message_contains: 'WORKING MEMORY' },
            times: 1,
            reply: { json: reasoningReply({ thinking: 'x', tool_calls: [{ name: 'nope', args: {} }] }) },
          },
          // Answered after the two rejections (the corrective note is then the last message).
          {
            match: { any_message_contains: 'WORKING MEMORY', last_message_contains: 'was rejected' },
            times: 1,
            reply: {
              json: reasoningReply({ thinking: 'add', tool_calls: [{ name: 'add', args: { a: 2, b: 3 } }] }),
            },
          },
          ...base.rules,
        ],
      };
      const kit = await startAgentKit(store, {
        script,
        definition: { synthesis: { enabled: false, threshold: 3 } },
      });
      try {
        const { session_id } = await kit.runtime.createSession({ agent_label: 'calculator', user_id: 'ada' });
        const turn = await kit.runtime.sendMessage(session_id, { content: 'please add 2 and 3' });
        assert.equal(turn.response, '2 + 3 = 5');
        const rows = await store.all<Row>(
          `SELECT source_invocation_id, workflow_node_id, model_output_kind FROM source_invocations
           WHERE run_id = ? AND invocation_kind = 'llm_generation' ORDER BY invocation_seq`,
          [turn.run_id],
        );
        assert.deepEqual(
          rows.map((r) => `${r.workflow_node_id}:${r.model_output_kind}`),
          [
            'emotion:rejected',
            'emotion:emotion',
            'reasoning:rejected',
            'reasoning:rejected',
            'reasoning:tool_calls',
            'reasoning:response',
          ],
        );
        const reasons = [];
        for (const r of rows.filter((r) => r.model_output_kind === 'rejected')) {
          const inv = (await getSourceInvocation(store, r.source_invocation_id)) as unknown as {
            metadata: { model_output_reason?: string };
          };
          reasons.push(inv.metadata.model_output_reason ?? '');
        }
        assert.match(reasons[0]!, /\/intensity must be <= 1/);
        assert.match(reasons[1]!, /non_json|not JSON|JSON/i);
        assert.match(reasons[2]!, /unknown tool "nope"/);
      } finally {
        await kit.close();
      }
    });
  });

  test('an accepted generation is named with its finished row: no write of its own after the call', async () => {
    await factory.withStore(async ({ store: raw }) => {
      const { store, recorded } = recordingTransactions(raw);
      const kit = await startAgentKit(store, { definition: { synthesis: { enabled: false, threshold: 3 } } });
      try {
        const { session_id } = await kit.runtime.createSession({ agent_label: 'calculator', user_id: 'ada' });
        const from = recorded.length;
        const turn = await kit.runtime.sendMessage(session_id, { content: 'please add 2 and 3' });
        assert.equal(turn.response, '2 + 3 = 5');
        const rows = await raw.all<Row>(
          `SELECT source_invocation_id, workflow_node_id, model_output_kind FROM source_invocations
           WHERE run_id = ? AND invocation_kind = 'llm_generation' ORDER BY invocation_seq`,
          [turn.run_id],
        );
        assert.deepEqual(
          rows.map((r) => `${r.workflow_node_id}:${r.model_output_kind}`),
          ['emotion:emotion', 'reasoning:tool_calls', 'reasoning:response'],
        );
        const txs = recorded.slice(from).map((t) => t.sqls.join('\n'));
        assert.equal(
          txs.filter((sql) => /SET model_output_kind = \?(, metadata = \?)? WHERE/.test(sql)).length,
          0,
        );
      } finally {
        await kit.close();
      }
    });
  });
});
