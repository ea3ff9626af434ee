/**
 * An agent whose emotion is switched off: its emotion step does nothing and emits no event, so it
 * commits with the memory step after it instead of in a transaction of its own.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startAgentKit } from '../../../testing/agent-kit.ts';
import { describeEachStore } from '../../../testing/each-store.ts';
import { recordingTransactions } from '../../../testing/recording-store.ts';
import { reasoningReply } from '../../../testing/strict-replies.ts';

const SCRIPT = {
  rules: [
    {
      match: { message_matches: '✓ add' },
      reply: { json: reasoningReply({ thinking: 'done', response: 'The sum is 5.' }) },
    },
  ],
  default: {
    json: reasoningReply({ thinking: 'use add', tool_calls: [{ name: 'add', args: { a: 2, b: 3 } }] }),
  },
};
const DEFINITION = {
  mode: 'fast',
  emotion: { enabled: false },
  memory: { long_term_limit: 0, working_memory_turns: 3 },
  synthesis: { enabled: false, threshold: 3 },
};

const has = (sqls: string[], prefix: string) => sqls.some((s) => s.trimStart().startsWith(prefix));
/** A batch of progress events written on its own (a step that outlasted the batch window). */
const eventsOnly = (sqls: string[]) =>
  sqls.every((s) => s.trimStart().startsWith('INSERT INTO agent_session_events') || s.includes('pg_notify'));

describeEachStore('agent emotion step switched off', (factory) => {
  test('commits with the memory step: one transaction between the run’s claim and the first call’s record, holding both steps', async () => {
    await factory.withStore(async ({ store: raw }) => {
      const { store, recorded } = recordingTransactions(raw);
      const kit = await startAgentKit(store, { script: SCRIPT as never, definition: DEFINITION });
      try {
        const rt = kit.runtime;
        const { session_id } = await rt.createSession({ agent_label: 'calculator', user_id: 'ada' });
        await rt.sendMessage(session_id, { content: 'add 2 and 3' });
        const tx0 = recorded.length;
        const turn = await rt.sendMessage(session_id, { content: 'add 2 and 3' });
        assert.equal(turn.response, 'The sum is 5.');
        const all = recorded.slice(tx0);
        const show = (ts: typeof all) =>
          ts.map((t) => t.sqls.map((s) => s.slice(0, 50)).join(' | ')).join('\n');
        const claim = all.findIndex((t) => has(t.sqls, "UPDATE engine_runs SET status = 'running'"));
        const record = all.findIndex((t) => has(t.sqls, 'INSERT INTO source_invocations'));
        assert.ok(claim >= 0 && record > claim, show(all));
        const between = all.slice(claim + 1, record).filter((t) => !eventsOnly(t.sqls));
        assert.equal(between.length, 1, show(between));
        const journal = between[0]!.sqls.filter((s) =>
          s.trimStart().startsWith('INSERT INTO engine_journal'),
        );
        assert.equal(journal.length, 2, 'the emotion step and the memory step');
        assert.equal(between[0]!.durability, 'deferred', 'a step that leaves the run running');
      } finally {
        await kit.close();
      }
    });
  });
});
