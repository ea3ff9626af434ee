import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ModelScript } from '../../dev/scripted-model/index.ts';
import { startAgentKit } from '../../testing/agent-kit.ts';
import { describeEachStore } from '../../testing/each-store.ts';
import { reasoningReply } from '../../testing/strict-replies.ts';

describeEachStore('agent generations cut off at the token limit', (factory) => {
  test('a reasoning reply cut off at the limit is retried within the turn, told it was cut off', async () => {
    await factory.withStore(async ({ store }) => {
      const script: ModelScript = {
        rules: [
          { match: { any_message_contains: 'Extract user insights' }, reply: { json: {} } },
          {
            match: { any_message_contains: 'WORKING MEMORY' },
            times: 1,
            reply: { text: '{"thinking":"I', finish_reason: 'length' },
          },
        ],
        default: { json: reasoningReply({ thinking: 't', response: 'short answer' }) },
      };
      const kit = await startAgentKit(store, {
        script,
        definition: { emotion: { enabled: false }, synthesis: { enabled: false, threshold: 3 } },
      });
      try {
        const { session_id } = await kit.runtime.createSession({ agent_label: 'calculator', user_id: 'ada' });
        const turn = await kit.runtime.sendMessage(session_id, { content: 'hello' });
        assert.equal(turn.response, 'short answer');
        const classes = await store.all<{ failure_class: string | null }>(
          `SELECT failure_class FROM source_invocations WHERE run_id = ? AND invocation_kind = 'llm_generation'
           ORDER BY invocation_seq`,
          [turn.run_id],
        );
        assert.deepEqual(
          classes.map((c) => c.failure_class ?? null),
          ['truncated', null],
        );
        const retried = JSON.stringify(kit.model.requests.at(-1)!.body.messages);
        assert.match(retried, /cut off/);
      } finally {
        await kit.close();
      }
    });
  });
});
