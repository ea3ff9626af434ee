/**
 * An agent message's model call answered 429 with Retry-After is called again after the wait, as a
 * source invocation of its own, and the message is answered.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ModelScript } from '../../dev/scripted-model/index.ts';
import { startAgentKit } from '../../testing/agent-kit.ts';
import { describeEachStore } from '../../testing/each-store.ts';
import { reasoningReply } from '../../testing/strict-replies.ts';

describeEachStore('agent model calls rate limited', (factory) => {
  test('a 429 with Retry-After: 1, then success: two invocations, the second a second after the first', async () => {
    await factory.withStore(async ({ store }) => {
      const script: ModelScript = {
        rules: [
          { match: { any_message_contains: 'Extract user insights' }, reply: { json: {} } },
          {
            match: { any_message_contains: 'WORKING MEMORY' },
            times: 1,
            reply: {
              error: {
                status: 429,
                headers: { 'retry-after': '1' },
                body: { error: { message: 'slow down' } },
              },
            },
          },
        ],
        default: { json: reasoningReply({ thinking: 't', response: 'answered' }) },
      };
      const kit = await startAgentKit(store, {
        script,
        definition: { emotion: { enabled: false }, synthesis: { enabled: false, threshold: 3 } },
      });
      try {
        const { session_id } = await kit.runtime.createSession({ agent_label: 'calculator', user_id: 'ada' });
        const turn = await kit.runtime.sendMessage(session_id, { content: 'hello' });
        assert.equal(turn.response, 'answered');
        const rows = await store.all<{ failure_class: string | null; started_at: number; ended_at: number }>(
          `SELECT failure_class, started_at, ended_at FROM source_invocations
           WHERE run_id = ? AND invocation_kind = 'llm_generation' ORDER BY invocation_seq`,
          [turn.run_id],
        );
        assert.deepEqual(
          rows.map((r) => r.failure_class ?? null),
          ['rate_limited', null],
        );
        assert.ok(Number(rows[1]!.started_at) - Number(rows[0]!.ended_at) >= 1000, JSON.stringify(rows));
      } finally {
        await kit.close();
      }
    });
  });
});
