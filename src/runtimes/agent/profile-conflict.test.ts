import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startAgentKit } from '../../testing/agent-kit.ts';
import { describeEachStore } from '../../testing/each-store.ts';
import { saveProfile } from './profiles/profile-store.ts';
import { newUserProfile } from './state/user-profile.ts';

describeEachStore('agent user profiles updated by two processes at once', (factory) => {
  test('a profile update that loses the race folds its insights into the newer profile instead of failing', async () => {
    await factory.withStore(async ({ store }) => {
      let raced = false;
      const kit = await startAgentKit(store, {
        // While this process's insight call is out, another update of the same user commits first.
        async onRequest(request) {
          if (raced || !JSON.stringify(request.body).includes('Extract user insights')) return;
          raced = true;
          const elsewhere = { ...newUserProfile('ada'), interaction_count: 7, goals: ['from elsewhere'] };
          await saveProfile(store, elsewhere, 0);
        },
      });
      try {
        const rt = kit.runtime;
        const { session_id } = await rt.createSession({ agent_label: 'calculator', user_id: 'ada' });
        await rt.sendMessage(session_id, { content: 'hello' });
        await rt.idle();
        assert.ok(raced, 'the competing update committed while the insight call was out');
        const profile = await rt.getUserProfile('ada');
        assert.equal(profile.interaction_count, 8, 'this interaction counted on top of the other update');
        assert.deepEqual(profile.goals, ['from elsewhere', 'practice arithmetic']);
        assert.deepEqual(profile.preferences, { answers: 'short' });
        const updates = await store.all<{ status: string }>('SELECT status FROM user_profile_updates');
        assert.deepEqual(
          updates.map((u) => u.status),
          ['completed'],
        );
      } finally {
        await kit.close();
      }
    });
  });
});
