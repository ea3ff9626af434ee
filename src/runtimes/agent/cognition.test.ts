import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ModelScript } from '../../dev/scripted-model/index.ts';
import { retrieveMemories } from '../../memory/index.ts';
import { startAgentKit } from '../../testing/agent-kit.ts';
import { tracedPrompts } from '../../testing/agent-kit-read.ts';
import { describeEachStore } from '../../testing/each-store.ts';
import { reasoningReply } from '../../testing/strict-replies.ts';
import type { SessionEvent } from './index.ts';

describeEachStore('agent sessions: reasoning, tools and memory', (factory) => {
  test('a failing tool ends FAILED with error_message and observation; Reasoning reads the status and adapt escalates', async () => {
    await factory.withStore(async ({ store }) => {
      const kit = await startAgentKit(store);
      try {
        const { session_id } = await kit.runtime.createSession({ agent_label: 'calculator', user_id: 'ada' });
        const events: SessionEvent[] = [];
        const turn = await kit.runtime.sendMessage(session_id, { content: 'please fail' }, (e) =>
          events.push(e),
        );
        assert.equal(turn.response, 'Sorry, the tool failed.');
        const run = await kit.runtime.engine.getRun(turn.run_id);
        const tool = run.contracts.find((c) => c.action_type === 'tool_call')!;
        assert.equal(tool.status, 'FAILED');
        assert.deepEqual(
          tool.transitions.map((t) => t.to),
          ['PENDING', 'RUNNING', 'FAILED'],
        );
        assert.match(tool.error_message!, /cannot comply: asked to/);
        assert.match(tool.observation!, /cannot comply/);
        const result = events.find((e) => e.event === 'tool_result')!;
        assert.equal(result.data.status, 'FAILED');
        assert.match(String(result.data.error_message), /cannot comply/);

        // The second reasoning prompt shows the failure by status, in deep mode (adapt escalated).
        const prompts = (await tracedPrompts(store, turn.run_id)).filter((p) => p.node_id === 'reasoning');
        assert.equal(prompts.length, 2);
        const second = prompts[1]!.messages[0]!.content;
        assert.match(second, /✗ fail \(FAILED\) → tool_error: /);
        assert.match(second, /DEEP MODE/);
        assert.match(prompts[0]!.messages[0]!.content, /FAST MODE/);
        const state = (await kit.runtime.getSession(session_id)).execution_state as {
          effective_mode: string;
          notifications: Array<{ kind: string; message: string }>;
          completed_calls: Array<{ success: boolean; status: string }>;
        };
        assert.equal(state.effective_mode, 'deep');
        assert.ok(state.notifications.some((n) => n.kind === 'mode' && /tool call failed/.test(n.message)));
        assert.deepEqual(
          state.completed_calls.map((c) => [c.status, c.success]),
          [['FAILED', false]],
        );
      } finally {
        await kit.close();
      }
    });
  });

  test('the prompt carries working memory, long-term memory, emotion modulation and the ECS/MCP instructions', async () => {
    await factory.withStore(async ({ store }) => {
      const kit = await startAgentKit(store);
      try {
        const rt = kit.runtime;
        const { session_id } = await rt.createSession({ agent_label: 'calculator', user_id: 'ada' });
        const first = await rt.sendMessage(session_id, { content: 'please add 2 and 3' });
        // memory_update entries were stored as long-term memories of the user.
        const mem = await retrieveMemories(store, { scope_kind: 'user', scope_id: 'ada' });
        assert.deepEqual(
          mem.items.map((m) => m.text),
          ['Ada practises additions'],
        );
        const saved = (await rt.events(session_id)).find((e) => e.event === 'memory_saved')!;
        assert.equal(saved.data.memory_id, mem.items[0]!.memory_id);
        assert.equal(first.response, '2 + 3 = 5');

        const second = await rt.sendMessage(session_id, { content: 'hello again' });
        assert.equal(second.response, 'Hello!');
        const prompt = (await tracedPrompts(store, second.run_id)).find((p) => p.node_id === 'reasoning')!;
        const system = prompt.messages[0]!.content;
        assert.match(system, /WORKING MEMORY:\nuser: please add 2 and 3\nassistant: 2 \+ 3 = 5/);
        assert.match(system, /RELEVANT LONG-TERM MEMORY:\n- \[note\] Ada practises additions/);
        assert.match(system, /EMOTION MODULATION: Be warm and brief\./);
        assert.match(system, /MCP tools:/);
        assert.match(system, /ECS: when only the user/);
        assert.match(system, /- add: Adds two numbers\. \(args: a: number, b: number\)/);
        assert.deepEqual(prompt.messages.at(-1), { role: 'user', content: 'hello again' });
      } finally {
        await kit.close();
      }
    });
  });

  test('a schema-invalid model reply is retried through the engine retry lane with corrective context', async () => {
    await factory.withStore(async ({ store }) => {
      const script: ModelScript = {
        rules: [
          {
            match: { any_message_contains: 'Detect the emotion' },
            reply: { json: { emotion: 'calm', intensity: 0.1, modulation: 'plain' } },
          },
          { match: { any_message_contains: 'Extract user insights' }, reply: { json: {} } },
          {
            match: { any_message_contains: 'WORKING MEMORY' },
            times: 1,
            reply: { json: { thought: 'wrong field' } },
          },
          {
            match: { any_message_contains: 'WORKING MEMORY' },
            times: 1,
            reply: { json: reasoningReply({ thinking: 'x', tool_calls: [{ name: 'nope', args: {} }] }) },
          },
        ],
        default: { json: reasoningReply({ thinking: 'ok now', response: 'fixed' }) },
      };
      const kit = await startAgentKit(store, { script });
      try {
        const { session_id } = await kit.runtime.createSession({ agent_label: 'calculator', user_id: 'u1' });
        const events: SessionEvent[] = [];
        const turn = await kit.runtime.sendMessage(session_id, { content: 'hi' }, (e) => events.push(e));
        assert.equal(turn.response, 'fixed');
        const retries = events.filter((e) => e.event === 'status' && e.data.phase === 'retry');
        assert.equal(retries.length, 2);
        const prompts = (await tracedPrompts(store, turn.run_id)).filter((p) => p.node_id === 'reasoning');
        assert.equal(prompts.length, 3);
        const last = prompts[2]!.messages.at(-1)!.content;
        assert.match(last, /Your previous reply was rejected/);
        assert.match(last, /unknown tool "nope"/);
      } finally {
        await kit.close();
      }
    });
  });

  test("a tool call whose arguments break the tool's input schema is rejected and retried, message after message", async () => {
    await factory.withStore(async ({ store }) => {
      const bad = {
        json: reasoningReply({ thinking: 'x', tool_calls: [{ name: 'add', args: { a: 'two', b: 3 } }] }),
      };
      const script: ModelScript = {
        rules: [
          {
            match: { any_message_contains: 'Detect the emotion' },
            reply: { json: { emotion: 'calm', intensity: 0.1, modulation: 'plain' } },
          },
          { match: { any_message_contains: 'Extract user insights' }, reply: { json: {} } },
          // Each message's first reasoning reply calls `add` with a string where a number belongs.
          {
            match: { last_message_contains: 'first', any_message_contains: 'WORKING MEMORY' },
            times: 1,
            reply: bad,
          },
          {
            match: { last_message_contains: 'second', any_message_contains: 'WORKING MEMORY' },
            times: 1,
            reply: bad,
          },
        ],
        default: { json: reasoningReply({ thinking: 'ok now', response: 'fixed' }) },
      };
      const kit = await startAgentKit(store, { script });
      try {
        const { session_id } = await kit.runtime.createSession({ agent_label: 'calculator', user_id: 'u1' });
        // The second message checks the arguments against the same tool schema again (compiled once).
        for (const content of ['first', 'second']) {
          const events: SessionEvent[] = [];
          const turn = await kit.runtime.sendMessage(session_id, { content }, (e) => events.push(e));
          assert.equal(turn.response, 'fixed');
          assert.equal(events.filter((e) => e.event === 'status' && e.data.phase === 'retry').length, 1);
          const prompts = (await tracedPrompts(store, turn.run_id)).filter((p) => p.node_id === 'reasoning');
          assert.equal(prompts.length, 2);
          assert.match(prompts[1]!.messages.at(-1)!.content, /arguments of add are invalid: \/a /);
          const run = await kit.runtime.engine.getRun(turn.run_id);
          assert.equal(run.contracts.filter((c) => c.action_type === 'tool_call').length, 0, 'no call made');
        }
      } finally {
        await kit.close();
      }
    });
  });

  test('an unreachable model ends the turn with an error event and frees the session', async () => {
    await factory.withStore(async ({ store }) => {
      const kit = await startAgentKit(store);
      try {
        const { session_id } = await kit.runtime.createSession({ agent_label: 'calculator', user_id: 'ada' });
        await kit.model.close(); // the model server goes away: calls fail at the network
        const events: SessionEvent[] = [];
        const turn = await kit.runtime.sendMessage(session_id, { content: 'hello' }, (e) => events.push(e));
        assert.equal(turn.outcome.status, 'failed');
        assert.equal(turn.response, null);
        const last = events.at(-1)!;
        assert.equal(last.event, 'error');
        assert.equal(last.data.code, 'MODEL_CALL_FAILED');
        const view = await kit.runtime.getSession(session_id);
        assert.equal(view.status, 'idle', 'the session takes the next message');
        const state = view.execution_state as { notifications: Array<{ kind: string }> };
        assert.ok(state.notifications.some((n) => n.kind === 'emotion_unavailable'));
        const calls = await store.all<{ status: string; failure_class: string }>(
          "SELECT status, failure_class FROM source_invocations WHERE invocation_kind = 'llm_generation'",
        );
        assert.ok(
          calls.length >= 2 && calls.every((c) => c.status === 'failed' && c.failure_class === 'network'),
        );
      } finally {
        await kit.close();
      }
    });
  });

  test('one message at a time: of two concurrent messages one runs and the other is SESSION_BUSY', async () => {
    await factory.withStore(async ({ store }) => {
      const script: ModelScript = {
        rules: [
          {
            match: { any_message_contains: 'Detect the emotion' },
            reply: { delay_ms: 150, json: { emotion: 'calm', intensity: 0.1, modulation: 'plain' } },
          },
        ],
        default: { json: reasoningReply({ thinking: 't', response: 'ok' }) },
      };
      const kit = await startAgentKit(store, {
        script,
        definition: { synthesis: { enabled: false, threshold: 3 } },
      });
      try {
        const { session_id } = await kit.runtime.createSession({ agent_label: 'calculator', user_id: 'u2' });
        const results = await Promise.allSettled([
          kit.runtime.sendMessage(session_id, { content: 'one' }),
          kit.runtime.sendMessage(session_id, { content: 'two' }),
        ]);
        assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
        const rejected = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
        assert.equal(rejected.reason.code, 'SESSION_BUSY');
        assert.equal(rejected.reason.retryable, true);
        const view = await kit.runtime.getSession(session_id);
        assert.equal(
          (view.transcript as unknown[]).length,
          2,
          'only the accepted message and its answer are stored',
        );
        // After the first finished, the session takes the next message.
        assert.equal((await kit.runtime.sendMessage(session_id, { content: 'three' })).response, 'ok');
      } finally {
        await kit.close();
      }
    });
  });

  test('bad input is a typed error and changes nothing', async () => {
    await factory.withStore(async ({ store }) => {
      const kit = await startAgentKit(store);
      try {
        const rt = kit.runtime;
        const count = async () =>
          (await store.get<{ n: number }>('SELECT COUNT(*) AS n FROM agent_sessions'))!.n;
        await assert.rejects(rt.createSession({ user_id: 'x' }), { code: 'INVALID_INPUT' });
        await assert.rejects(rt.createSession({ agent_label: 'nobody', user_id: 'x' }), {
          code: 'UNKNOWN_AGENT',
        });
        await assert.rejects(rt.createSession({ agent_ref: { hash: 'a'.repeat(64) }, user_id: 'x' }), {
          code: 'UNKNOWN_AGENT',
        });
        await assert.rejects(rt.createSession({ agent_label: 'calculator', user_id: 'bad user!' }), {
          code: 'INVALID_INPUT',
        });
        assert.equal(Number(await count()), 0);
        const { session_id } = await rt.createSession({ agent_label: 'calculator', user_id: 'x' });
        await assert.rejects(rt.sendMessage(session_id, { content: '' }), { code: 'INVALID_INPUT' });
        await assert.rejects(rt.sendMessage(session_id, { content: 'hi', mode: 'turbo' }), {
          code: 'INVALID_INPUT',
        });
        await assert.rejects(rt.sendMessage('no-such-session', { content: 'hi' }), {
          code: 'UNKNOWN_SESSION',
        });
        await assert.rejects(rt.continueEcs({ session_id }), { code: 'NO_CHECKPOINT' });
        await assert.rejects(rt.getUserProfile('bad user!'), { code: 'INVALID_INPUT' });
        assert.deepEqual(await rt.events(session_id), []);
        // Definitions: invalid shape, missing references, unknown MCP tool.
        const base = {
          version: 1,
          label: 'x',
          llm_source_ref: { hash: kit.llm_source_hash },
          tools: [],
          mode: 'fast',
          max_iterations: 3,
          emotion: { enabled: false },
          memory: { long_term_limit: 0, working_memory_turns: 0 },
          synthesis: { enabled: false, threshold: 3 },
        };
        await assert.rejects(rt.putAgent({ ...base, mode: 'turbo' }), { code: 'INVALID_INPUT' });
        await assert.rejects(rt.putAgent({ ...base, llm_source_ref: { hash: 'b'.repeat(64) } }), {
          code: 'INVALID_INPUT',
        });
        await assert.rejects(
          rt.putAgent({ ...base, tools: [{ server_ref: { hash: kit.server_hash }, tool_names: ['nope'] }] }),
          (err: { code: string; details: { available: string[] } }) =>
            err.code === 'INVALID_INPUT' && err.details.available.includes('add'),
        );
        await assert.rejects(rt.putAgent({ ...base, graph_ref: { hash: 'c'.repeat(64) } }), {
          code: 'UNKNOWN_AGENT_GRAPH',
        });
        const labels = (await rt.listAgents()).map((a) => a.label);
        assert.deepEqual(labels, ['calculator']);
        // The same document twice is one definition (content-addressed).
        const a = await rt.putAgent(base);
        const b = await rt.putAgent({ ...base });
        assert.equal(a.hash, b.hash);
      } finally {
        await kit.close();
      }
    });
  });
});
