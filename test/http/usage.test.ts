/**
 * Tokens and cost summed per run, world attempt, agent session and flowchart run: in the JSON of
 * GET /runs/:id, /attempts/:id, /sessions/:id and /flowchart-runs/:id, and on their pages.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createFlowchart, runFlowchart } from '../../src/runtimes/flow/index.ts';
import { getAttempt } from '../../src/runtimes/world/index.ts';
import { startAgentKit } from '../../src/testing/agent-kit.ts';
import { describeEachStore } from '../../src/testing/each-store.ts';
import { flowKit } from '../../src/testing/flow-kit.ts';
import { reasoningReply } from '../../src/testing/strict-replies.ts';
import { startParkKit } from '../../src/testing/world-kit.ts';
import { startTestHttp } from './helpers.ts';

const HTML = { headers: { accept: 'text/html' } };

type Usage = { calls: number; tokens: { input: number; output: number }; unpriced: number };

function assertUsage(usage: Usage | undefined, calls: number, what: string) {
  assert.ok(usage, `${what} has usage`);
  assert.equal(usage.calls, calls, what);
  assert.ok(usage.tokens.input > 0 && usage.tokens.output > 0, `${what}: ${JSON.stringify(usage)}`);
  assert.equal(usage.unpriced, calls, `${what}: no price table, nothing priced`);
}

describeEachStore('usage sums over HTTP', (factory) => {
  test('a world attempt and its run, an agent session, a flowchart run and its run', async () => {
    await factory.withStore(async ({ store }) => {
      const park = await startParkKit(store);
      const saved = { ...process.env };
      Object.assign(process.env, park.env);
      const http = await startTestHttp(store);
      const flow = await flowKit(store, {
        rules: [],
        default: { json: { text: 'the sky is blue', store_mode: 'append', confidence: 0.9 } },
      });
      const agent = await startAgentKit(store, {
        script: {
          rules: [{ match: { any_message_contains: 'Extract user insights' }, reply: { json: {} } }],
          default: { json: reasoningReply({ thinking: 't', response: 'hi' }) },
        },
        definition: { emotion: { enabled: false }, synthesis: { enabled: false, threshold: 3 } },
      });
      try {
        // A world turn: its attempt's calls, and the same on its engine run.
        await park.world('park');
        const turn = await park.runtime.runTurn({ world_slug: 'park' });
        const a = await getAttempt(store, { attempt_id: turn.attempt_id });
        const gens = a.source_invocations.filter((i) => i.invocation_kind === 'llm_generation').length;
        const attempt = await http.get(`/attempts/${turn.attempt_id}?format=json`);
        assertUsage(attempt.body.usage, gens, 'attempt');
        const worldRun = await http.get(`/runs/${a.run_id}?format=json`);
        assert.deepEqual(worldRun.body.usage, attempt.body.usage, 'a world run sums its attempt');
        assert.match((await http.get(`/attempts/${turn.attempt_id}`, HTML)).text, /LLM calls[\s\S]*unpriced/);

        // A flowchart run: one model call.
        const fc = await createFlowchart(store, {
          name: 'single',
          graph: {
            nodes: [
              { id: 'start', node_type: 'start' },
              { id: 'n', node_type: 'memory', config: { action: 'add', retry_count: 0 } },
              { id: 'end', node_type: 'end' },
            ],
            edges: [
              { source_node_id: 'start', target_node_id: 'n', edge_mode: 'solid' },
              { source_node_id: 'n', target_node_id: 'end', edge_mode: 'solid' },
            ],
          },
        });
        const { flowchart_run_id } = await runFlowchart(store, flow.engine, fc.flowchart_id, {
          input: { text: 'the sky is blue today' },
        });
        const fr = await http.get(`/flowchart-runs/${flowchart_run_id}?format=json`);
        assertUsage(fr.body.usage, 1, 'flowchart run');
        assert.deepEqual((await http.get(`/runs/${flowchart_run_id}?format=json`)).body.usage, fr.body.usage);
        assert.match((await http.get(`/flowchart-runs/${flowchart_run_id}`, HTML)).text, /LLM calls/);

        // An agent session of two messages: the calls of both runs.
        const { session_id } = await agent.runtime.createSession({
          agent_label: 'calculator',
          user_id: 'ada',
        });
        const first = await agent.runtime.sendMessage(session_id, { content: 'hello' });
        await agent.runtime.sendMessage(session_id, { content: 'again' });
        const calls = await store.all<{ n: number | string }>(
          `SELECT COUNT(*) AS n FROM source_invocations s JOIN agent_session_messages m ON m.run_id = s.run_id
           WHERE m.session_id = ? AND m.role = 'user' AND s.llm_call_id IS NOT NULL`,
          [session_id],
        );
        const session = await http.get(`/sessions/${session_id}?format=json`);
        assertUsage(session.body.usage, Number(calls[0]!.n), 'session');
        const one = await http.get(`/runs/${first.run_id}?format=json`);
        assert.ok(one.body.usage.calls < session.body.usage.calls, 'a message run is part of its session');
        assert.match((await http.get(`/sessions/${session_id}`, HTML)).text, /LLM calls/);
      } finally {
        process.env = saved;
        await agent.close();
        await flow.close();
        await http.close();
        await park.close();
      }
    });
  });
});
