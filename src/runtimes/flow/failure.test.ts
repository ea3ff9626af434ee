import assert from 'node:assert/strict';
import { test } from 'node:test';
import { strictSubsetViolations } from '../../core/strict-schema.ts';
import type { ModelScript } from '../../dev/scripted-model/index.ts';
import type { Store } from '../../store/store.ts';
import { describeEachStore } from '../../testing/each-store.ts';
import { flowKit } from '../../testing/flow-kit.ts';
import { deliveredReply } from '../../testing/strict-replies.ts';
import {
  cancelFlowRun,
  createFlowchart,
  createFlowRun,
  getFlowRun,
  listNodeArtifacts,
  runFlowchart,
} from './index.ts';
import { PATCH_SCHEMA } from './nodes/plan.ts';

/** start → node → end */
async function single(store: Store, node: Record<string, unknown>) {
  return createFlowchart(store, {
    name: 'single',
    graph: {
      nodes: [
        { id: 'start', node_type: 'start' },
        { id: 'n', ...node },
        { id: 'end', node_type: 'end' },
      ],
      edges: [
        { source_node_id: 'start', target_node_id: 'n', edge_mode: 'solid' },
        { source_node_id: 'n', target_node_id: 'end', edge_mode: 'solid' },
      ],
    },
  });
}

async function invocations(store: Store, run: string) {
  return store.all<{ status: string; invocation_kind: string }>(
    'SELECT status, invocation_kind FROM source_invocations WHERE run_id = ? ORDER BY invocation_seq',
    [run],
  );
}

const NOT_JSON: ModelScript = { rules: [], default: { text: 'definitely not JSON' } };

describeEachStore('flowchart failure semantics', (factory) => {
  test('memory: a reply within the strict schema sent but out of its bounds is retried, then falls back', async () =>
    factory.withStore(async ({ store }) => {
      const outOfBounds: ModelScript = {
        rules: [],
        default: { json: { text: 'the sky is green', store_mode: 'append', confidence: 7 } },
      };
      const kit = await flowKit(store, outOfBounds);
      try {
        const fc = await single(store, { node_type: 'memory', config: { action: 'add', retry_count: 1 } });
        const { flowchart_run_id, outcome } = await runFlowchart(store, kit.engine, fc.flowchart_id, {
          input: { text: 'the sky is green today' },
        });
        assert.equal(outcome.status, 'completed', JSON.stringify(outcome.error));
        const inv = await invocations(store, flowchart_run_id);
        assert.deepEqual(
          inv.map((r) => r.status),
          ['succeeded', 'succeeded'],
          'both calls match the schema sent, which has no bounds',
        );
        const sent = kit.model.requests[0]!.body as { response_format: { json_schema: { schema: unknown } } };
        assert.deepEqual(strictSubsetViolations(sent.response_format.json_schema.schema), []);
        const [a] = (await listNodeArtifacts(store, { flowchart_run_id, artifact_type: 'memory' })).items;
        const p = a!.payload as Record<string, unknown>;
        assert.equal(p.fallback_used, true);
        assert.match(p.fallback_reason as string, /FLOW_LLM_FAILED.*\/confidence must be <= 1/);
      } finally {
        await kit.close();
      }
    }));

  test('memory: 1 + retry_count primary attempts, then one deterministic fallback, degraded markers', async () =>
    factory.withStore(async ({ store }) => {
      const kit = await flowKit(store, NOT_JSON);
      try {
        const fc = await single(store, { node_type: 'memory', config: { action: 'add', retry_count: 2 } });
        const { flowchart_run_id, outcome } = await runFlowchart(store, kit.engine, fc.flowchart_id, {
          input: { text: 'the sky is green today' },
        });
        assert.equal(outcome.status, 'completed', JSON.stringify(outcome.error));
        const inv = await invocations(store, flowchart_run_id);
        assert.equal(inv.length, 3, 'three llm_guided attempts');
        assert.ok(inv.every((r) => r.status === 'failed' && r.invocation_kind === 'flow_node'));
        const [a] = (await listNodeArtifacts(store, { flowchart_run_id, artifact_type: 'memory' })).items;
        const p = a!.payload as Record<string, unknown>;
        assert.equal(p.execution_status, 'success_with_warning');
        assert.equal(p.fallback_used, true);
        assert.equal(p.failed_mode, 'llm_guided');
        assert.equal(p.fallback_mode, 'deterministic');
        assert.match(p.fallback_reason as string, /llm_guided failed after 3 attempt/);
        assert.equal((p.stored_memory as { text: string }).text, 'the sky is green today');
      } finally {
        await kit.close();
      }
    }));

  test('plan: deterministic primary retries, then llm_guided fallback with mode_fallback_used', async () =>
    factory.withStore(async ({ store }) => {
      const kit = await flowKit(store, {
        rules: [],
        default: { json: deliveredReply({ stages: [{ stage_key: 's', title: 'S' }] }, PATCH_SCHEMA) },
      });
      try {
        const fc = await single(store, {
          node_type: 'plan',
          config: { mode: 'deterministic', store_mode: 'append', patch_source_path: '/input/missing' },
        });
        const { flowchart_run_id, outcome } = await runFlowchart(store, kit.engine, fc.flowchart_id);
        assert.equal(outcome.status, 'completed', JSON.stringify(outcome.error));
        assert.equal(kit.model.requests.length, 1, 'exactly one fallback call');
        const [a] = (await listNodeArtifacts(store, { flowchart_run_id, artifact_type: 'plan' })).items;
        const p = a!.payload as Record<string, unknown>;
        assert.equal(p.mode_fallback_used, true);
        assert.equal(p.failed_mode, 'deterministic');
        assert.equal(p.fallback_mode, 'llm_guided');
        assert.match(p.fallback_reason as string, /PLAN_PATCH_MISSING/);
        const attempts = (p.routing_state as { attempts: unknown[] }).attempts;
        assert.equal(attempts.length, 3, '2 primary (retry_count 1) + 1 fallback');
      } finally {
        await kit.close();
      }
    }));

  test('a failed fallback is a hard failure with no second hop', async () =>
    factory.withStore(async ({ store }) => {
      const kit = await flowKit(store, NOT_JSON);
      try {
        const fc = await single(store, {
          node_type: 'plan',
          config: { mode: 'llm_guided', store_mode: 'append', retry_count: 1 },
        });
        const { flowchart_run_id, outcome } = await runFlowchart(store, kit.engine, fc.flowchart_id);
        assert.equal(outcome.status, 'failed');
        assert.equal(outcome.error?.code, 'FALLBACK_FAILED');
        assert.equal(
          kit.model.requests.length,
          2,
          'primary attempts only; the deterministic fallback calls no model',
        );
        const run = await getFlowRun(store, kit.engine, flowchart_run_id);
        const n = run.node_runs.find((r) => r.flowchart_node_id === 'n')!;
        assert.equal(n.status, 'failed');
        assert.equal(n.error?.code, 'FALLBACK_FAILED');
        assert.equal(
          run.node_runs.some((r) => r.flowchart_node_id === 'end'),
          false,
        );
      } finally {
        await kit.close();
      }
    }));

  test('fallback_enabled false: primary attempts only', async () =>
    factory.withStore(async ({ store }) => {
      const kit = await flowKit(store, NOT_JSON);
      try {
        const fc = await single(store, {
          node_type: 'memory',
          config: { action: 'retrieve', retry_count: 0, fallback_enabled: false },
        });
        const { outcome } = await runFlowchart(store, kit.engine, fc.flowchart_id);
        assert.equal(outcome.status, 'failed');
        assert.equal(outcome.error?.code, 'FLOW_LLM_FAILED');
        assert.equal(kit.model.requests.length, 1);
      } finally {
        await kit.close();
      }
    }));

  test('an ambiguous plan key fails at once, without retries or fallback', async () =>
    factory.withStore(async ({ store }) => {
      const kit = await flowKit(store, { rules: [] });
      try {
        const fc = await createFlowchart(store, {
          name: 'amb',
          graph: {
            nodes: [
              { id: 'start', node_type: 'start' },
              {
                id: 'seed',
                node_type: 'plan',
                config: {
                  mode: 'deterministic',
                  store_mode: 'append',
                  plan_key: 'p',
                  patch: {
                    stages: [
                      { stage_key: 'dup' },
                      { stage_key: 'x', tasks: [] },
                      { stage_id: 'other', stage_key: 'dup' },
                    ],
                  },
                },
              },
              {
                id: 'upd',
                node_type: 'plan',
                config: {
                  mode: 'deterministic',
                  store_mode: 'update',
                  plan_key: 'p',
                  patch: { stages: [{ stage_key: 'dup', status: 'done' }] },
                },
              },
              { id: 'end', node_type: 'end' },
            ],
            edges: [
              { source_node_id: 'start', target_node_id: 'seed', edge_mode: 'solid' },
              { source_node_id: 'seed', target_node_id: 'upd', edge_mode: 'solid' },
              { source_node_id: 'upd', target_node_id: 'end', edge_mode: 'solid' },
            ],
          },
        });
        const { outcome } = await runFlowchart(store, kit.engine, fc.flowchart_id);
        assert.equal(outcome.status, 'failed');
        assert.equal(outcome.error?.code, 'PLAN_AMBIGUOUS_MATCH');
        assert.equal(kit.model.requests.length, 0, 'no llm_guided fallback was attempted');
      } finally {
        await kit.close();
      }
    }));

  test('a memory node with non-system MCP keys is rejected at run time', async () =>
    factory.withStore(async ({ store }) => {
      const kit = await flowKit(store, { rules: [] });
      try {
        const fc = await single(store, {
          node_type: 'memory',
          config: { action: 'add', mode: 'deterministic' },
        });
        await store.run(
          'UPDATE flowchart_nodes SET config_json = ? WHERE flowchart_id = ? AND flowchart_node_id = ?',
          [
            JSON.stringify({
              action: 'add',
              mode: 'deterministic',
              retry_count: 1,
              fallback_enabled: true,
              mcp_server_keys: ['llmctl-mcp', 'github'],
            }),
            fc.flowchart_id,
            'n',
          ],
        );
        const { outcome } = await runFlowchart(store, kit.engine, fc.flowchart_id, { input: { text: 'x' } });
        assert.equal(outcome.status, 'failed');
        assert.equal(outcome.error?.code, 'MEMORY_MCP_BINDING_INVALID');
        const stored = await store.get<{ n: number }>('SELECT COUNT(*) AS n FROM long_term_memories');
        assert.equal(Number(stored?.n), 0, 'nothing stored');
      } finally {
        await kit.close();
      }
    }));

  test('decision no_match fails the run and its artifact says so', async () =>
    factory.withStore(async ({ store }) => {
      const kit = await flowKit(store, { rules: [] });
      try {
        const fc = await createFlowchart(store, {
          name: 'nomatch',
          graph: {
            nodes: [
              { id: 'start', node_type: 'start' },
              { id: 'd', node_type: 'decision' },
              { id: 'end', node_type: 'end' },
            ],
            edges: [
              { source_node_id: 'start', target_node_id: 'd', edge_mode: 'solid' },
              {
                id: 'c',
                source_node_id: 'd',
                target_node_id: 'end',
                edge_mode: 'solid',
                condition: { path: '/input/x', exists: true },
              },
            ],
          },
        });
        const { flowchart_run_id, outcome } = await runFlowchart(store, kit.engine, fc.flowchart_id, {
          input: {},
        });
        assert.equal(outcome.status, 'failed');
        assert.equal(outcome.error?.code, 'DECISION_NO_MATCH');
        const [a] = (await listNodeArtifacts(store, { flowchart_run_id, artifact_type: 'decision' })).items;
        const p = a!.payload as Record<string, unknown>;
        assert.equal(p.no_match, true);
        assert.deepEqual(p.matched_connector_ids, []);
        assert.equal(p.resolved_route_key, null);
      } finally {
        await kit.close();
      }
    }));

  test('cancel: a queued run becomes cancelled; cancelling it again is INVALID_TRANSITION', async () =>
    factory.withStore(async ({ store }) => {
      const kit = await flowKit(store, { rules: [] });
      try {
        const fc = await single(store, { node_type: 'milestone', config: { action: 'create_or_update' } });
        const { flowchart_run_id } = await createFlowRun(store, kit.engine, fc.flowchart_id);
        const view = await cancelFlowRun(store, kit.engine, flowchart_run_id);
        assert.equal(view.status, 'cancelled');
        await assert.rejects(cancelFlowRun(store, kit.engine, flowchart_run_id), {
          code: 'INVALID_TRANSITION',
        });
        await assert.rejects(getFlowRun(store, kit.engine, '00000000-0000-7000-8000-000000000000'), {
          code: 'UNKNOWN_FLOWCHART_RUN',
        });
      } finally {
        await kit.close();
      }
    }));

  test('plan deterministic mode with an LLM transform records llm_transform_summary', async () =>
    factory.withStore(async ({ store }) => {
      const kit = await flowKit(store, {
        rules: [
          {
            match: { any_message_contains: 'Transform this plan patch' },
            reply: {
              json: deliveredReply({ stages: [{ stage_key: 'shout', title: 'SHIP IT' }] }, PATCH_SCHEMA),
            },
          },
        ],
      });
      try {
        const fc = await single(store, {
          node_type: 'plan',
          config: {
            mode: 'deterministic',
            store_mode: 'append',
            patch: { stages: [{ stage_key: 'shout', title: 'ship it' }] },
            llm_transform_prompt: 'Upper-case every title.',
          },
        });
        const { flowchart_run_id, outcome } = await runFlowchart(store, kit.engine, fc.flowchart_id);
        assert.equal(outcome.status, 'completed', JSON.stringify(outcome.error));
        const [a] = (await listNodeArtifacts(store, { flowchart_run_id, artifact_type: 'plan' })).items;
        const p = a!.payload as {
          llm_transform_summary: { output_patch: unknown };
          plan: { stages: Array<{ title: string }> };
        };
        assert.deepEqual(p.llm_transform_summary.output_patch, {
          stages: [{ stage_key: 'shout', title: 'SHIP IT' }],
        });
        assert.equal(p.plan.stages[0]!.title, 'SHIP IT');
      } finally {
        await kit.close();
      }
    }));
});
