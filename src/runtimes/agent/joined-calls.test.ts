import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startAgentKit } from '../../testing/agent-kit.ts';
import { describeEachStore } from '../../testing/each-store.ts';
import { recordingTransactions } from '../../testing/recording-store.ts';

const has = (sqls: string[], re: RegExp) => sqls.some((q) => re.test(q));
// Created with its RUNNING move (INSERT) or moved (UPDATE): either way in the invocation's transaction.
const contractMove = /^(UPDATE|INSERT INTO) engine_contracts/;

describeEachStore('agent sessions: model and tool calls are joined to their contracts', (factory) => {
  test("every model and tool call commits its contract's RUNNING and final moves with its invocation rows", async () => {
    await factory.withStore(async ({ store: raw }) => {
      const { store, txs } = recordingTransactions(raw);
      const kit = await startAgentKit(store, {
        definition: { synthesis: { enabled: false, threshold: 3 } },
      });
      try {
        const { session_id } = await kit.runtime.createSession({ agent_label: 'calculator', user_id: 'ada' });
        const turn = await kit.runtime.sendMessage(session_id, { content: 'please add 2 and 3' });
        assert.equal(turn.response, '2 + 3 = 5');
        const run = await kit.runtime.engine.getRun(turn.run_id);
        const called = run.contracts.filter(
          (c) => c.action_type === 'llm_generation' || c.action_type === 'tool_call',
        );
        // Emotion, reasoning, the add tool and reasoning again: each one source invocation.
        assert.ok(called.length >= 4, `expected the turn's model and tool calls, got ${called.length}`);
        const running = txs.filter((t) => has(t, /^INSERT INTO source_invocations/));
        const finished = txs.filter((t) => has(t, /^UPDATE source_invocations SET status/));
        assert.equal(running.length, called.length, 'one running row per call');
        assert.equal(finished.length, called.length, 'one finished row per call');
        for (const t of running) assert.ok(has(t, contractMove), 'RUNNING commits with the running row');
        for (const t of finished)
          assert.ok(has(t, contractMove), 'the final move commits with the finished row');
        // The streamed reasoning call went through the same joined path.
        const reasoning = called.filter((c) => (c.payload as { stream?: string }).stream === 'response');
        assert.ok(reasoning.length >= 1, 'the reasoning call streams its response');
        for (const c of called)
          assert.deepEqual(
            c.transitions.map((t) => t.to),
            ['PENDING', 'RUNNING', 'COMPLETED'],
          );
      } finally {
        await kit.close();
      }
    });
  });
});
