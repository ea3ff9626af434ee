/**
 * A step's session events commit with the step: by the time the run makes its next call (after the
 * step committed), the events its nodes reported in that step are stored. A process killed there —
 * the case test/crash/worker-agent-kill.test.ts kills for real — leaves none of them behind; before,
 * they waited up to 50 ms in a batch of their own after the step's commit.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startAgentKit } from '../../testing/agent-kit.ts';
import { describeEachStore } from '../../testing/each-store.ts';

/** The reasoning request after the MCP tool's result (the calculator script's second round). */
const AFTER_TOOL = '✓ add';

describeEachStore('agent session events commit with their step', (factory) => {
  test('the tool step’s tool_result is stored before the next model call is sent', async () => {
    await factory.withStore(async ({ store }) => {
      let seen: string[] | null = null;
      let session_id = '';
      const kit = await startAgentKit(store, {
        async onRequest(request) {
          if (seen || !JSON.stringify(request.body).includes(AFTER_TOOL)) return;
          const rows = await store.all<{ event: string }>(
            'SELECT event FROM agent_session_events WHERE session_id = ? ORDER BY seq',
            [session_id],
          );
          seen = rows.map((r) => r.event);
        },
      });
      try {
        const rt = kit.runtime;
        ({ session_id } = await rt.createSession({ agent_label: 'calculator', user_id: 'ada' }));
        const turn = await rt.sendMessage(session_id, { content: 'add 2 and 3' });
        assert.equal(turn.status, 'idle');
        assert.ok(seen, 'the model was asked again after the tool');
        assert.ok((seen as string[]).includes('tool_result'), `stored then: ${(seen as string[]).join(' ')}`);
        // Each event stored once, in order, ending with the turn's done.
        const events = await rt.events(session_id);
        assert.deepEqual(
          events.map((e) => e.id),
          events.map((_, i) => i + 1),
        );
        assert.equal(events.filter((e) => e.event === 'tool_result').length, 1);
        assert.equal(events.at(-1)?.event, 'done');
      } finally {
        await kit.close();
      }
    });
  });

  test('the memory step’s memory event is stored before the first reasoning call is sent', async () => {
    await factory.withStore(async ({ store }) => {
      let seen: string[] | null = null;
      let session_id = '';
      const kit = await startAgentKit(store, {
        async onRequest(request) {
          // The emotion call comes first; the memory step runs between it and the reasoning call.
          if (seen || JSON.stringify(request.body).includes('Detect the emotion')) return;
          const rows = await store.all<{ event: string }>(
            'SELECT event FROM agent_session_events WHERE session_id = ? ORDER BY seq',
            [session_id],
          );
          seen = rows.map((r) => r.event);
        },
      });
      try {
        const rt = kit.runtime;
        ({ session_id } = await rt.createSession({ agent_label: 'calculator', user_id: 'ada' }));
        const turn = await rt.sendMessage(session_id, { content: 'add 2 and 3' });
        assert.equal(turn.status, 'idle');
        assert.ok(seen, 'the reasoning model was asked');
        assert.ok((seen as string[]).includes('memory'), `stored then: ${(seen as string[]).join(' ')}`);
        const events = await rt.events(session_id);
        assert.deepEqual(
          events.map((e) => e.id),
          events.map((_, i) => i + 1),
        );
        assert.equal(events.filter((e) => e.event === 'memory').length, 1);
      } finally {
        await kit.close();
      }
    });
  });
});
