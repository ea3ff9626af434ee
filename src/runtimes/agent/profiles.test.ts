import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { retrieveMemories } from '../../memory/index.ts';
import { listSourceInvocations } from '../../sources/index.ts';
import { startAgentKit } from '../../testing/agent-kit.ts';
import { tracedPrompts } from '../../testing/agent-kit-read.ts';
import { describeEachStore } from '../../testing/each-store.ts';

const WORKER = fileURLToPath(new URL('../../testing/agent-worker.ts', import.meta.url));

function worker(url: string, env: Record<string, string>, args: string[]): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [WORKER, ...args],
      { env: { ...process.env, ...env, NOEMA_DB: url }, timeout: 60_000 },
      (err, stdout, stderr) => {
        if (err) return reject(new Error(`${err.message}\n${stderr}`));
        resolve(JSON.parse(stdout.trim().split('\n').at(-1)!));
      },
    );
  });
}

describeEachStore('agent user profiles and the ImpressionSynthesizer', (factory) => {
  test('insights after every finished interaction, synthesis every third, USER CONTEXT in later prompts', async () => {
    await factory.withStore(async ({ store }) => {
      const kit = await startAgentKit(store);
      try {
        const rt = kit.runtime;
        const { session_id } = await rt.createSession({ agent_label: 'calculator', user_id: 'ada' });
        const doneAt: number[] = [];
        const first = await rt.sendMessage(session_id, { content: 'hello' }, (e) => {
          if (e.event === 'done') doneAt.push(e.at);
        });
        await rt.idle();
        let profile = await rt.getUserProfile('ada');
        assert.equal(profile.interaction_count, 1);
        assert.equal(profile.synthesis_version, 1);
        assert.deepEqual(profile.goals, ['practice arithmetic']);
        assert.deepEqual(profile.preferences, { answers: 'short' });

        // Never before done: the insight call started after the done event was stored.
        const insight = (
          await listSourceInvocations(store, { invocation_kind: 'llm_generation', limit: 200 })
        ).items.find((i) => i.workflow_node_id === 'insight')!;
        assert.ok(insight, 'the insight extraction is a traced source invocation');
        assert.notEqual(insight.run_id, first.run_id, 'it runs in its own background engine run');
        assert.ok(Date.parse(String(insight.started_at)) >= doneAt[0]!, 'extraction starts only after done');

        const second = await rt.sendMessage(session_id, { content: 'hi there' });
        const prompt = (await tracedPrompts(store, second.run_id)).find((p) => p.node_id === 'reasoning')!;
        assert.match(
          prompt.messages[0]!.content,
          /^USER CONTEXT:\nCOMMUNICATION: concise\nCURRENT GOALS: practice arithmetic/,
        );
        await rt.idle();
        assert.equal((await rt.getUserProfile('ada')).synthesis_version, 1);

        await rt.sendMessage(session_id, { content: 'third time' });
        await rt.idle();
        profile = await rt.getUserProfile('ada');
        assert.equal(profile.interaction_count, 3);
        assert.equal(profile.synthesis_version, 2, 'the third interaction triggers a synthesis');
        assert.equal(profile.communication_style, 'concise, numeric');
        assert.deepEqual(profile.interests, ['numbers']);
        const synth = (await tracedPrompts(store)).filter((p) => p.node_id === 'synthesize');
        assert.equal(synth.length, 1);
        assert.match(synth[0]!.messages[0]!.content, /CURRENT PROFILE:\nCOMMUNICATION: concise/);
      } finally {
        await kit.close();
      }
    });
  });

  test('queued profile updates survive the process: another process finishes them', async () => {
    await factory.withStore(async ({ store, url }) => {
      const kit = await startAgentKit(store, { background: 'defer' });
      try {
        const rt = kit.runtime;
        const { session_id } = await rt.createSession({ agent_label: 'calculator', user_id: 'cy' });
        for (const content of ['one', 'two', 'three']) await rt.sendMessage(session_id, { content });
        await rt.idle();
        assert.equal((await rt.getUserProfile('cy')).stored, false, 'nothing ran in this process');
        const queued = await store.all("SELECT run_id FROM user_profile_updates WHERE status = 'queued'");
        assert.equal(queued.length, 3);

        const out = await worker(url, kit.env, ['background']);
        assert.equal(out.ok, true, JSON.stringify(out));
        const profile = await rt.getUserProfile('cy');
        assert.equal(profile.interaction_count, 3);
        assert.equal(profile.synthesis_version, 2);
        const left = await store.all("SELECT run_id FROM user_profile_updates WHERE status = 'queued'");
        assert.equal(left.length, 0);
      } finally {
        await kit.close();
      }
    });
  });

  test('forgetting a user deletes the profile and the long-term memories, and nothing else', async () => {
    await factory.withStore(async ({ store }) => {
      const kit = await startAgentKit(store);
      try {
        const rt = kit.runtime;
        for (const user_id of ['ada', 'bob']) {
          const { session_id } = await rt.createSession({ agent_label: 'calculator', user_id });
          await rt.sendMessage(session_id, { content: 'please add 2 and 3' });
        }
        await rt.idle();
        const out = await rt.forgetUser('ada');
        assert.deepEqual(out, { user_id: 'ada', profile_deleted: true, memories_deleted: 1 });
        assert.equal((await rt.getUserProfile('ada')).stored, false);
        assert.equal(
          (await retrieveMemories(store, { scope_kind: 'user', scope_id: 'ada' })).items.length,
          0,
        );
        assert.equal((await rt.getUserProfile('bob')).stored, true);
        assert.equal(
          (await retrieveMemories(store, { scope_kind: 'user', scope_id: 'bob' })).items.length,
          1,
        );
        assert.deepEqual(await rt.forgetUser('ada'), {
          user_id: 'ada',
          profile_deleted: false,
          memories_deleted: 0,
        });
      } finally {
        await kit.close();
      }
    });
  });
});
