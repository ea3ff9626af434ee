/**
 * Every runtime against every provider profile, through the provider fixture: a flowchart run and an
 * agent message with a tool call complete, each call sent as the profile sends it (the fixture
 * refuses what its provider refuses) and read back with its tokens.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startProviderFixture } from '../../src/dev/provider-fixture/index.ts';
import { loadScript, type ModelScript } from '../../src/dev/scripted-model/index.ts';
import { matches } from '../../src/dev/scripted-model/script.ts';
import { createFlowchart, createFlowEngine, runFlowchart } from '../../src/runtimes/flow/index.ts';
import type { ProviderName } from '../../src/sources/index.ts';
import { CALCULATOR_SCRIPT_PATH, startAgentKit } from '../../src/testing/agent-kit.ts';
import { describeEachStore } from '../../src/testing/each-store.ts';
import { PARK_SCRIPT, startParkKit } from '../../src/testing/world-kit.ts';

const PROFILES: ProviderName[] = [
  'openai',
  'anthropic',
  'gemini',
  'ollama',
  'llamacpp',
  'vllm',
  'lmstudio',
  'openrouter',
  'azure-openai',
];

/** The fixture's reply chosen as a model script's first matching rule (on the messages) says. */
function scriptReply(script: ModelScript) {
  return (body: Record<string, unknown>, headers: Record<string, string | string[] | undefined>) => {
    // A prompt-only schema (Anthropic's profile) is a system message after the conversation.
    const all = (body.messages ?? []) as Array<{ role: string; content: unknown }>;
    const messages = all.at(-1)?.role === 'system' && all.length > 1 ? all.slice(0, -1) : all;
    const contents = messages.map((m) =>
      typeof m.content === 'string' ? m.content : JSON.stringify(m.content),
    );
    const facts = {
      model: String(body.model),
      turn: headers['x-noema-turn'] === undefined ? undefined : Number(headers['x-noema-turn']),
      subject: headers['x-noema-subject'] as string | undefined,
      call: 0,
      contents,
      hasResponseFormat: body.response_format !== undefined,
    };
    const rule = script.rules.find((r) => matches(r.match, facts));
    return JSON.stringify((rule?.reply ?? script.default)?.json ?? {});
  };
}

function envOf(profile: ProviderName, url: string): Record<string, string> {
  return {
    NOEMA_LLM_BASE_URL: url,
    NOEMA_LLM_PROVIDER: profile,
    NOEMA_LLM_API_KEY: 'sk-fixture-0123456789',
    NOEMA_LLM_MODEL: 'fixture-model',
  };
}

async function succeededCalls(store: import('../../src/store/store.ts').Store, run_id: string) {
  return store.all<{ status: string; failure_message: string | null; llm_prompt_tokens: number | null }>(
    'SELECT status, failure_message, llm_prompt_tokens FROM source_invocations WHERE run_id = ? AND llm_call_id IS NOT NULL',
    [run_id],
  );
}

describeEachStore('every runtime against every provider profile', (factory) => {
  test('a world turn (a generation with a tool call) commits against each profile', async () => {
    await factory.withStore(async ({ store }) => {
      const script = loadScript(PARK_SCRIPT);
      for (const profile of PROFILES) {
        const fixture = await startProviderFixture({ profile, reply: scriptReply(script) });
        const kit = await startParkKit(store, { env: envOf(profile, fixture.url) });
        try {
          const slug = `park-${profile}`;
          await kit.world(slug);
          const turn = await kit.runtime.runTurn({ world_slug: slug });
          assert.equal(turn.status, 'committed', `${profile}: ${JSON.stringify(turn)}`);
          // Bob's generation, its tool call's follow-up, the ant's: all answered by the fixture.
          assert.equal(fixture.requests.length, 3, profile);
          assert.equal(fixture.requests.filter((r) => r.refused).length, 0, profile);
        } finally {
          await kit.close();
          await fixture.close();
        }
      }
    });
  });

  test('a flowchart run completes against each profile', async () => {
    await factory.withStore(async ({ store }) => {
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
      for (const profile of PROFILES) {
        const fixture = await startProviderFixture({
          profile,
          reply: JSON.stringify({ text: 'the sky is blue', store_mode: 'append', confidence: 0.9 }),
        });
        const engine = createFlowEngine(store, { env: envOf(profile, fixture.url) });
        try {
          const { flowchart_run_id, outcome } = await runFlowchart(store, engine, fc.flowchart_id, {
            input: { text: 'the sky is blue today' },
          });
          assert.equal(outcome.status, 'completed', `${profile}: ${JSON.stringify(outcome.error)}`);
          const calls = await succeededCalls(store, flowchart_run_id);
          assert.deepEqual(
            calls.map((c) => c.status),
            ['succeeded'],
            `${profile}: ${JSON.stringify(calls)}`,
          );
          // LM Studio reports no usage while streaming: its tokens are not reported.
          if (profile === 'lmstudio') assert.equal(calls[0]!.llm_prompt_tokens, null, profile);
          else assert.ok(Number(calls[0]!.llm_prompt_tokens) > 0, profile);
          assert.equal(fixture.requests.filter((r) => r.refused).length, 0, profile);
        } finally {
          await engine.close();
          await fixture.close();
        }
      }
    });
  });

  test('an agent message with a tool call completes against each profile', async () => {
    await factory.withStore(async ({ store }) => {
      const script = loadScript(CALCULATOR_SCRIPT_PATH);
      for (const profile of PROFILES) {
        const fixture = await startProviderFixture({ profile, reply: scriptReply(script) });
        const kit = await startAgentKit(store, {
          env: envOf(profile, fixture.url),
          definition: { synthesis: { enabled: false, threshold: 3 } },
        });
        try {
          const { session_id } = await kit.runtime.createSession({
            agent_label: 'calculator',
            user_id: 'ada',
          });
          const turn = await kit.runtime.sendMessage(session_id, { content: 'please add 2 and 3' });
          assert.equal(turn.response, '2 + 3 = 5', `${profile}: ${JSON.stringify(turn.outcome)}`);
          const calls = await succeededCalls(store, turn.run_id);
          assert.ok(calls.length >= 2, `${profile}: ${JSON.stringify(calls)}`);
          assert.ok(
            calls.every((c) => c.status === 'succeeded'),
            `${profile}: ${JSON.stringify(calls)}`,
          );
          assert.equal(fixture.requests.filter((r) => r.refused).length, 0, profile);
        } finally {
          await kit.close();
          await fixture.close();
        }
      }
    });
  });
});
