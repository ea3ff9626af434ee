import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startAgentKit } from '../../testing/agent-kit.ts';
import { describeEachStore } from '../../testing/each-store.ts';
import { recordingTransactions } from '../../testing/recording-store.ts';

const has = (sqls: string[], re: RegExp) => sqls.some((q) => re.test(q));
// Created with its RUNNING move (INSERT) or moved (UPDATE): either way in the running row's transaction.
const contractMove = /^(UPDATE|INSERT INTO) engine_contracts/;

describeEachStore('agent sessions: model and tool calls are joined to their contracts', (factory) => {
  test("every model and tool call commits its contract's RUNNING move with its running row, its final move with the run's next commit", async () => {
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
        // The finished row is the outcome's durable record (recovery reads it), so the final move
        // rides on the run's next commit after it, not on a statement of the finish's own.
        const settle = /^UPDATE engine_contracts/;
        for (const t of finished) {
          assert.equal(has(t, contractMove), false, 'the finished row commits alone');
          const next = txs.slice(txs.indexOf(t) + 1).find((u) => has(u, settle));
          assert.ok(next, 'a later commit of the run settles it');
        }
        // Each settle rides on a step (its journal row) or on the next action's RUNNING commit.
        const alone = txs.filter(
          (t) =>
            has(t, settle) && !has(t, /^INSERT INTO (engine_journal|source_invocations|engine_contracts)/),
        );
        assert.equal(alone.length, 0, 'no final move commits on its own');
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
