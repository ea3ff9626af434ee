import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ModelScript } from '../../dev/scripted-model/index.ts';
import { startAgentKit } from '../../testing/agent-kit.ts';
import { describeEachStore } from '../../testing/each-store.ts';
import { reasoningReply } from '../../testing/strict-replies.ts';
import type { SessionEvent } from './index.ts';

const ANSWER = 'Hello "world" — naïve 😀\nthe sum is {5}; bye\\';

const script: ModelScript = {
  rules: [
    { match: { any_message_contains: 'Extract user insights' }, reply: { json: {} } },
    {
      match: { any_message_contains: 'WORKING MEMORY' },
      reply: {
        chunk_chars: 5,
        chunk_delay_ms: 25,
        json: reasoningReply({ thinking: 'the "response" comes last', response: ANSWER, switch_mode: null }),
      },
    },
  ],
  default: { json: reasoningReply({ thinking: 't', response: 'ok' }) },
};

describeEachStore('agent sessions: the answer is token-streamed', (factory) => {
  test('text_delta events carry the response as the model streams it; the stored text event stays the truth', async () => {
    await factory.withStore(async ({ store }) => {
      const kit = await startAgentKit(store, {
        script,
        definition: { emotion: { enabled: false }, synthesis: { enabled: false, threshold: 3 } },
      });
      try {
        const rt = kit.runtime;
        const { session_id } = await rt.createSession({ agent_label: 'calculator', user_id: 'ada' });
        const events: Array<SessionEvent & { received: number }> = [];
        const turn = await rt.sendMessage(session_id, { content: 'hello' }, (e) =>
          events.push({ ...e, received: Date.now() }),
        );
        assert.equal(turn.response, ANSWER);

        const deltas = events.filter((e) => e.event === 'text_delta');
        assert.ok(deltas.length > 3, `the answer arrives in pieces (got ${deltas.length})`);
        assert.ok(deltas.every((e) => e.id === null && e.data.run_id === turn.run_id));
        assert.equal(deltas.map((e) => e.data.delta).join(''), ANSWER);
        let offset = 0;
        for (const d of deltas) {
          assert.equal(d.data.offset, offset, 'offsets are contiguous');
          offset += (d.data.delta as string).length;
        }
        const text = events.find((e) => e.event === 'text')!;
        assert.equal(text.data.text, ANSWER);
        const names = events.map((e) => e.event);
        const reasoningStarted = events.findIndex(
          (e) => e.event === 'status' && e.data.phase === 'reasoning',
        );
        assert.ok(reasoningStarted >= 0 && reasoningStarted < names.indexOf('text_delta'));
        assert.ok(names.lastIndexOf('text_delta') < names.indexOf('text'), 'the deltas come before the text');
        // While the model streams, not after: the first piece is seen well before the last one is sent.
        assert.ok(
          deltas[0]!.received < text.received - 100,
          `first delta at ${deltas[0]!.received}, text at ${text.received}`,
        );

        // Deltas are live only: the stored stream (resume with Last-Event-ID) has the text instead.
        const stored = await rt.events(session_id);
        assert.ok(!stored.some((e) => (e.event as string) === 'text_delta'));
        assert.deepEqual(
          stored.map((e) => e.event),
          names.filter((n) => n !== 'text_delta'),
        );
        const before = stored.find((e) => e.event === 'thinking')!.id!;
        const resumed = await rt.events(session_id, before);
        assert.deepEqual(
          resumed.map((e) => e.event),
          ['text', 'execution_state', 'done'],
        );
        assert.equal(resumed[0]!.data.text, ANSWER);
      } finally {
        await kit.close();
      }
    });
  });

  test('a reply that calls a tool streams no text; the model call is still one traced invocation', async () => {
    await factory.withStore(async ({ store }) => {
      const kit = await startAgentKit(store, {
        definition: { emotion: { enabled: false }, synthesis: { enabled: false, threshold: 3 } },
      });
      try {
        const rt = kit.runtime;
        const { session_id } = await rt.createSession({ agent_label: 'calculator', user_id: 'ada' });
        const events: SessionEvent[] = [];
        const turn = await rt.sendMessage(session_id, { content: 'please add 2 and 3' }, (e) =>
          events.push(e),
        );
        assert.equal(turn.response, '2 + 3 = 5');
        const deltas = events.filter((e) => e.event === 'text_delta');
        assert.equal(deltas.map((e) => e.data.delta).join(''), '2 + 3 = 5', 'only the final reply streams');
        const run = await rt.engine.getRun(turn.run_id);
        const llm = run.contracts.filter((c) => c.action_type === 'llm_generation');
        assert.equal(llm.length, 2);
        assert.ok(deltas.every((d) => d.data.contract_id === llm[1]!.contract_id));
        const rows = await store.all<{ contract_id: string; status: string }>(
          "SELECT contract_id, status FROM source_invocations WHERE run_id = ? AND invocation_kind = 'llm_generation'",
          [turn.run_id],
        );
        assert.deepEqual(rows.map((r) => r.contract_id).sort(), llm.map((c) => c.contract_id).sort());
        assert.ok(rows.every((r) => r.status === 'succeeded'));
      } finally {
        await kit.close();
      }
    });
  });
});
