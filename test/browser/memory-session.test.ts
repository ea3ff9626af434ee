/**
 * The notes an agent wrote to its reasoning memory during a session are linked from the session page:
 * each `branchmind_notes_commit` it made links to the entry on its branch's page, and the session
 * links the agent's workspace — on both stores.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ModelScript } from '../../src/dev/scripted-model/index.ts';
import { INSIGHTS_SCHEMA } from '../../src/runtimes/agent/reply-schema.ts';
import { agentReasoningMemory } from '../../src/surfaces/mcp/agent-memory.ts';
import { startAgentKit } from '../../src/testing/agent-kit.ts';
import { describeEachStore } from '../../src/testing/each-store.ts';
import { deliveredReply, reasoningReply } from '../../src/testing/strict-replies.ts';
import { startTestHttp, TOKEN } from '../http/helpers.ts';

const script: ModelScript = {
  rules: [
    {
      match: { any_message_contains: 'Extract user insights' },
      reply: { json: deliveredReply({}, INSIGHTS_SCHEMA) },
    },
    {
      match: { message_matches: '✓ branchmind_notes_commit' },
      reply: { json: reasoningReply({ thinking: 'noted', response: 'Noted for the team.' }) },
    },
  ],
  default: {
    json: reasoningReply({
      thinking: 'write it to the shared memory',
      tool_calls: [
        { name: 'branchmind_notes_commit', args: { doc: 'notes', content: 'the park closes at sunset' } },
      ],
    }),
  },
};

describeEachStore('browser: an agent session links the notes it wrote', (factory) => {
  test('the session page links each note the agent committed, and its workspace', async () => {
    await factory.withStore(async ({ store }) => {
      const kit = await startAgentKit(store, {
        script,
        reasoningMemory: agentReasoningMemory(store),
        definition: {
          emotion: { enabled: false },
          reasoning_memory: { workspace: 'team', tools: ['branchmind_notes_commit', 'branchmind_show'] },
        },
      });
      const http = await startTestHttp(store);
      try {
        const { session_id } = await kit.runtime.createSession({ agent_label: 'calculator', user_id: 'ada' });
        await kit.runtime.sendMessage(session_id, { content: 'remember the closing time' });
        const page = await fetch(`${http.url}/sessions/${session_id}`, {
          headers: { authorization: `Bearer ${TOKEN}`, accept: 'text/html' },
        }).then((r) => r.text());
        assert.match(page, /href="\/memory-workspaces\/team"/);
        const link = /href="(\/memory-workspaces\/team\/branches\/main#seq-(\d+))"/.exec(page);
        assert.ok(link, 'a link to the note on its branch');
        const branch = await fetch(`${http.url}/memory-workspaces/team/branches/main`, {
          headers: { authorization: `Bearer ${TOKEN}`, accept: 'text/html' },
        }).then((r) => r.text());
        assert.match(branch, new RegExp(`<tr id="seq-${link[2]}">.*the park closes at sunset`));
      } finally {
        await http.close();
        await kit.close();
      }
    });
  });
});
