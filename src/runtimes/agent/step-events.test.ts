/**
 * A step's session events commit with the step: by the time the run makes its next call (after the
 * step committed, or with the call's record that carries it), the events its nodes reported in that
 * step are stored. A process killed there — the case test/crash/worker-agent-kill.test.ts kills for
 * real — leaves none of them behind; before, they waited up to 50 ms in a batch of their own after
 * the step's commit.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Store } from '../../store/store.ts';
import { startAgentKit } from '../../testing/agent-kit.ts';
import { describeEachStore } from '../../testing/each-store.ts';

/** The reasoning request after the MCP tool's result (the calculator script's second round). */
const AFTER_TOOL = '✓ add';
/** The emotion call's prompt: the calculator agent's first call, before the memory step. */
const EMOTION = 'Detect the emotion';

/**
 * One calculator turn on `store`, reading the session's stored events when the model first gets a
 * request `when` picks; returns those and the session's events after the turn, each checked stored
 * once and in order, the turn ending with `done`.
 */
async function storedAtRequest(
  store: Store,
  when: (body: string) => boolean,
): Promise<{ then: string[]; after: string[] }> {
  let then: string[] | null = null;
  let session_id = '';
  const kit = await startAgentKit(store, {
    async onRequest(request) {
      if (then || !when(JSON.stringify(request.body))) return;
      const rows = await store.all<{ event: string }>(
        'SELECT event FROM agent_session_events WHERE session_id = ? ORDER BY seq',
        [session_id],
      );
      then = rows.map((r) => r.event);
    },
  });
  try {
    const rt = kit.runtime;
    ({ session_id } = await rt.createSession({ agent_label: 'calculator', user_id: 'ada' }));
    const turn = await rt.sendMessage(session_id, { content: 'add 2 and 3' });
    assert.equal(turn.status, 'idle');
    assert.ok(then, 'the model got the request');
    const events = await rt.events(session_id);
    assert.deepEqual(
      events.map((e) => e.id),
      events.map((_, i) => i + 1),
    );
    assert.equal(events.at(-1)?.event, 'done');
    return { then, after: events.map((e) => e.event) };
  } finally {
    await kit.close();
  }
}

describeEachStore('agent session events commit with their step', (factory) => {
  test('the tool step’s tool_result is stored before the next model call is sent', async () => {
    await factory.withStore(async ({ store }) => {
      const { then, after } = await storedAtRequest(store, (body) => body.includes(AFTER_TOOL));
      assert.ok(then.includes('tool_result'), `stored then: ${then.join(' ')}`);
      assert.equal(after.filter((e) => e === 'tool_result').length, 1);
    });
  });

  test('the memory step’s memory event is stored before the first reasoning call is sent', async () => {
    await factory.withStore(async ({ store }) => {
      // The emotion call comes first; the memory step runs between it and the reasoning call.
      const { then, after } = await storedAtRequest(store, (body) => !body.includes(EMOTION));
      assert.ok(then.includes('memory'), `stored then: ${then.join(' ')}`);
      assert.equal(after.filter((e) => e === 'memory').length, 1);
    });
  });
});
