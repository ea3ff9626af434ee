import assert from 'node:assert/strict';
import { test } from 'node:test';
import { listSourceInvocations } from '../../sources/index.ts';
import { startAgentKit } from '../../testing/agent-kit.ts';
import { describeEachStore } from '../../testing/each-store.ts';
import type { SessionEvent } from './index.ts';

describeEachStore('agent sessions: the cognitive graph', (factory) => {
  test('a tool call runs PENDING → RUNNING → COMPLETED through the sources layer and the reply reads the contract', async () => {
    await factory.withStore(async ({ store }) => {
      const kit = await startAgentKit(store);
      try {
        const { session_id } = await kit.runtime.createSession({
          agent_ref: { hash: kit.agent_hash },
          user_id: 'ada',
        });
        const events: SessionEvent[] = [];
        const turn = await kit.runtime.sendMessage(session_id, { content: 'please add 2 and 3' }, (e) =>
          events.push(e),
        );
        assert.equal(turn.status, 'idle');
        assert.equal(turn.response, '2 + 3 = 5');

        const run = await kit.runtime.engine.getRun(turn.run_id);
        const tool = run.contracts.find((c) => c.action_type === 'tool_call')!;
        assert.equal(tool.status, 'COMPLETED');
        assert.deepEqual(
          tool.transitions.map((t) => t.to),
          ['PENDING', 'RUNNING', 'COMPLETED'],
        );
        assert.deepEqual(tool.result, { sum: 5 });
        assert.ok(tool.observation, 'the observation is populated for backward compatibility');

        const calls = await listSourceInvocations(store, {
          run_id: turn.run_id,
          invocation_kind: 'agent_tool_call',
        });
        assert.equal(calls.items.length, 1);
        assert.equal(calls.items[0]!.contract_id, tool.contract_id);
        assert.equal(calls.items[0]!.status, 'succeeded');

        const names = events.map((e) => e.event);
        for (const n of [
          'status',
          'emotion',
          'memory',
          'thinking',
          'tool_result',
          'memory_saved',
          'text',
          'execution_state',
          'done',
        ])
          assert.ok(
            names.includes(n as SessionEvent['event']),
            `event ${n} is streamed (got ${names.join(',')})`,
          );
        const stored = events.filter((e) => e.event !== 'text_delta');
        assert.deepEqual(
          stored.map((e) => e.id),
          stored.map((_, i) => i + 1),
          'stored events carry consecutive per-session ids',
        );
        assert.ok(
          events.filter((e) => e.event === 'text_delta').every((e) => e.id === null),
          'text deltas are live only',
        );
        assert.ok(events.every((e) => e.data.session_id === session_id && e.data.run_id === turn.run_id));
        const toolResult = events.find((e) => e.event === 'tool_result')!;
        assert.equal(toolResult.data.status, 'COMPLETED');
        assert.equal(names.at(-1), 'done');

        const view = await kit.runtime.getSession(session_id);
        assert.equal(view.status, 'idle');
        assert.deepEqual(
          (view.transcript as Array<{ role: string; content: string }>).map((m) => [m.role, m.content]),
          [
            ['user', 'please add 2 and 3'],
            ['assistant', '2 + 3 = 5'],
          ],
        );
        const exec = view.execution_state as {
          completed_calls: Array<{ success: boolean }>;
          stop_reason: string;
        };
        assert.equal(exec.stop_reason, 'response');
        assert.equal(exec.completed_calls[0]!.success, true);
        assert.equal((view.reasoning_context as { strategy: string }).strategy, 'use the add tool');
      } finally {
        await kit.close();
      }
    });
  });
});
