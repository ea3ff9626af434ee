/**
 * A turn executed by another process (this process's engine executes nothing) is followed by reading
 * its stored events. A read the store refuses for a moment is tried again at the next poll while the
 * turn goes on elsewhere: the caller still gets the turn's reply and every event once, in order.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ModelScript } from '../../dev/scripted-model/index.ts';
import { startAgentKit } from '../../testing/agent-kit.ts';
import { describeEachStore } from '../../testing/each-store.ts';
import { refusingReads, storeOutage } from '../../testing/faulty-store.ts';
import { reasoningReply } from '../../testing/strict-replies.ts';
import { createAgentRuntime } from './runtime.ts';
import type { SessionEvent } from './sessions/events.ts';

const script: ModelScript = {
  rules: [{ match: { any_message_contains: 'Extract user insights' }, reply: { json: {} } }],
  default: { json: reasoningReply({ thinking: 't', response: 'back' }) },
};

/** The follower's read of a session's stored events. */
const EVENTS_READ = /^SELECT seq, event, data, at FROM agent_session_events WHERE session_id = \?/;

describeEachStore('a turn followed from another process, when the store refuses a read', (factory) => {
  test('the follower outlives reads refused for a moment and relays every event once, in order', async () =>
    factory.withStore(async ({ store }) => {
      const kit = await startAgentKit(store, { script, definition: { emotion: { enabled: false } } });
      let failures = 0;
      const refusing = refusingReads(store, 'all', EVENTS_READ, () => failures-- > 0);
      const api = await createAgentRuntime(refusing.store, { env: kit.env, executes: false });
      try {
        const { session_id } = await api.createSession({ agent_label: 'calculator', user_id: 'ada' });
        // The stopped run's view, read once the turn closed, refused once too (as its store read would be).
        const getRun = api.engine.getRun.bind(api.engine);
        let viewRefusals = 1;
        api.engine.getRun = (run_id, options) =>
          viewRefusals-- > 0 ? Promise.reject(storeOutage('the run view refused')) : getRun(run_id, options);
        const relayed: SessionEvent[] = [];
        failures = 3; // the follower's first three reads of the stored events
        const turn = api.sendMessage(session_id, { content: 'hello' }, (e) => relayed.push(e));
        // The executing process claims the turn once the API process has opened it.
        let claimed = null;
        for (let i = 0; i < 200 && !claimed; i++) {
          claimed = await kit.runtime.engine.claimNext();
          if (!claimed) await new Promise((r) => setTimeout(r, 20));
        }
        assert.equal(claimed?.status, 'completed', 'the executing process ran the turn');
        const result = await turn;
        assert.equal(result.response, 'back');
        assert.equal(refusing.refused(), 3, 'the reads were refused');
        assert.equal(viewRefusals, -1, 'the run view was read again after it was refused');
        const stored = await kit.runtime.events(session_id);
        const ids = (es: Array<{ id?: number | null }>) => es.map((e) => e.id).filter((id) => id != null);
        assert.ok(ids(stored).length >= 3, `the turn stored its events: ${JSON.stringify(stored)}`);
        assert.deepEqual(ids(relayed), ids(stored), 'every stored event relayed once, in order');
        assert.ok(
          relayed.some((e) => e.event === 'done'),
          'the turn’s closing reached the caller',
        );
      } finally {
        await api.close();
        await kit.close();
      }
    }));
});
