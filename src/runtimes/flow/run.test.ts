import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachStore } from '../../testing/each-store.ts';
import { EXAMPLE, EXAMPLE_SCRIPT, flowKit, readJson } from '../../testing/flow-kit.ts';
import {
  createFlowchart,
  createFlowRun,
  type FlowEvent,
  getFlowRun,
  getMilestone,
  getPlan,
  listNodeArtifacts,
  runFlowchart,
  subscribeFlowRun,
} from './index.ts';

describeEachStore('flowchart runs', (factory) => {
  test('the example flowchart runs end to end: node runs, artifacts, plan, milestone, memory, events', async () =>
    factory.withStore(async ({ store }) => {
      const kit = await flowKit(store, readJson(EXAMPLE_SCRIPT));
      try {
        const fc = await createFlowchart(store, readJson(EXAMPLE));
        assert.equal(fc.validation?.valid, true, JSON.stringify(fc.validation));
        const created = await createFlowRun(store, kit.engine, fc.flowchart_id, {
          input: { message: 'my printer jams', attachments: [{ name: 'photo.jpg' }] },
          request_id: 'req-1',
          correlation_id: 'corr-1',
        });
        const events: FlowEvent[] = [];
        const unsub = await subscribeFlowRun(kit.engine, store, created, (e) => events.push(e));
        const outcome = await kit.engine.continueRun(created.flowchart_run_id);
        await unsub();
        assert.equal(outcome.status, 'completed', JSON.stringify(outcome.error));
        const run = await getFlowRun(store, kit.engine, created.flowchart_run_id);
        assert.equal(run.status, 'completed');
        assert.deepEqual(
          run.node_runs.map((n) => [n.execution_index, n.flowchart_node_id, n.status]),
          [
            [1, 'start', 'succeeded'],
            [2, 'summarize', 'succeeded'],
            [3, 'remember', 'succeeded'],
            [4, 'recall', 'succeeded'],
            [5, 'plan', 'succeeded'],
            [6, 'triaged', 'succeeded'],
            [7, 'route', 'succeeded'],
            [8, 'escalate', 'succeeded'],
          ],
        );
        for (const n of run.node_runs) {
          assert.ok(n.started_at && n.finished_at && n.duration_ms !== null, 'timings');
          assert.equal(n.error, null);
        }
        const recall = run.node_runs.find((n) => n.flowchart_node_id === 'recall')!.output_state as {
          retrieved_memories: Array<{ text: string }>;
        };
        assert.equal(recall.retrieved_memories[0]!.text, "Customer's office printer jams on every page.");

        const artifacts = await listNodeArtifacts(
          store,
          { flowchart_run_id: created.flowchart_run_id },
          { limit: 50 },
        );
        assert.deepEqual(artifacts.items.map((a) => a.artifact_type).sort(), [
          'decision',
          'memory',
          'memory',
          'milestone',
          'plan',
        ]);
        for (const a of artifacts.items) {
          assert.equal(a.request_id, 'req-1');
          assert.equal(a.correlation_id, 'corr-1');
        }
        const mem = artifacts.items.find((a) => a.flowchart_node_id === 'remember')!.payload as Record<
          string,
          unknown
        >;
        for (const k of [
          'action',
          'action_prompt_template',
          'internal_action_prompt',
          'action_results',
          'additive_prompt',
          'inferred_prompt',
          'effective_prompt',
          'stored_memory',
          'retrieved_memories',
          'mcp_server_keys',
          'routing_state',
          'execution_status',
          'fallback_used',
          'llm_guided_add',
        ])
          assert.ok(k in mem, `memory artifact has ${k}`);
        assert.deepEqual(mem.mcp_server_keys, ['llmctl-mcp']);
        assert.equal(mem.execution_status, 'success');

        const planArt = artifacts.items.find((a) => a.artifact_type === 'plan')!;
        const pp = planArt.payload as Record<string, unknown>;
        for (const k of [
          'mode',
          'store_mode',
          'action_results',
          'additive_prompt',
          'operation_counts',
          'touched',
          'warnings',
          'errors',
          'mode_fallback_used',
          'failed_mode',
          'fallback_mode',
          'fallback_reason',
          'plan',
          'routing_state',
        ])
          assert.ok(k in pp, `plan artifact has ${k}`);
        assert.deepEqual(pp.operation_counts, { created: 3, updated: 0, replaced: 0, skipped_missing: 0 });
        const plan = await getPlan(store, planArt.plan_id!);
        assert.deepEqual(
          plan.plan.stages[0]!.tasks.map((t) => t.task_key),
          ['call', 'part'],
        );

        const ms = artifacts.items.find((a) => a.artifact_type === 'milestone')!;
        const mp = ms.payload as Record<string, unknown>;
        assert.equal(mp.checkpoint_hit, true);
        assert.equal(mp.before_milestone, null);
        assert.equal((await getMilestone(store, ms.milestone_id!)).status, 'complete');

        const dec = artifacts.items.find((a) => a.artifact_type === 'decision')!.payload as Record<
          string,
          unknown
        >;
        assert.deepEqual(dec.matched_connector_ids, ['urgent']);
        assert.equal(dec.no_match, false);
        assert.equal(dec.resolved_route_key, 'escalate');
        assert.equal(dec.resolved_route_path, 'route -> escalate');
        assert.deepEqual(dec.evaluations, [
          {
            connector_id: 'urgent',
            condition_text: "the summary's urgency is high",
            matched: true,
            reason: 'urgency is high',
          },
          {
            connector_id: 'normal',
            condition_text: '',
            matched: false,
            reason: '/context_only_upstream_nodes/0/output/urgency = "high" != "low"',
          },
        ]);

        // Every model call is a traced source invocation of kind flow_node, linked to the run.
        const inv = await store.all<{ invocation_kind: string; status: string }>(
          'SELECT invocation_kind, status FROM source_invocations WHERE run_id = ?',
          [created.flowchart_run_id],
        );
        assert.equal(inv.length, 4);
        assert.ok(inv.every((r) => r.invocation_kind === 'flow_node' && r.status === 'succeeded'));

        const kinds = new Set(events.map((e) => e.event));
        assert.deepEqual([...kinds].sort(), [
          'flowchart.node.updated',
          'flowchart.run.updated',
          'flowchart:node_artifact:persisted',
        ]);
        const nodeEv = events.find((e) => e.event === 'flowchart.node.updated' && e.status === 'succeeded')!;
        for (const k of [
          'flowchart_id',
          'flowchart_run_id',
          'flowchart_node_id',
          'flowchart_node_type',
          'node_run_id',
          'status',
          'execution_index',
          'output_state',
          'routing_state',
          'started_at',
          'finished_at',
          'duration_ms',
        ])
          assert.ok(k in nodeEv, `node event has ${k}`);
        const artEv = events.find((e) => e.event === 'flowchart:node_artifact:persisted')!;
        for (const k of [
          'flowchart_id',
          'flowchart_run_id',
          'flowchart_node_id',
          'flowchart_node_type',
          'node_run_id',
          'artifact_id',
          'artifact_type',
          'artifact',
          'request_id',
          'correlation_id',
        ])
          assert.ok(k in artEv, `artifact event has ${k}`);
        const runEv = events.filter((e) => e.event === 'flowchart.run.updated').at(-1)!;
        assert.equal(runEv.event === 'flowchart.run.updated' && runEv.status, 'completed');
      } finally {
        await kit.close();
      }
    }));

  test('connectors: dotted passes only context, dashed only attachments, neither triggers', async () =>
    factory.withStore(async ({ store }) => {
      const kit = await flowKit(store, { rules: [] });
      try {
        const fc = await createFlowchart(store, {
          name: 'connectors',
          graph: {
            nodes: [
              { id: 'start', node_type: 'start' },
              { id: 'gate', node_type: 'milestone', config: { action: 'create_or_update' } },
              { id: 'side', node_type: 'milestone', config: { action: 'create_or_update' } },
              { id: 'd', node_type: 'decision' },
              { id: 'end', node_type: 'end' },
            ],
            edges: [
              { source_node_id: 'start', target_node_id: 'gate', edge_mode: 'solid' },
              { source_node_id: 'start', target_node_id: 'side', edge_mode: 'solid' },
              { source_node_id: 'gate', target_node_id: 'd', edge_mode: 'solid' },
              { id: 'ctx', source_node_id: 'side', target_node_id: 'd', edge_mode: 'dotted' },
              { id: 'att', source_node_id: 'start', target_node_id: 'd', edge_mode: 'dashed' },
              {
                id: 'go',
                source_node_id: 'd',
                target_node_id: 'end',
                edge_mode: 'solid',
                condition: { path: '/propagated_attachments/0/name', equals: 'doc.txt' },
              },
              {
                id: 'ctx-seen',
                source_node_id: 'd',
                target_node_id: 'end',
                edge_mode: 'solid',
                condition: { path: '/context_only_upstream_nodes/0/node_id', in: ['side'] },
              },
              {
                id: 'att-seen',
                source_node_id: 'd',
                target_node_id: 'end',
                edge_mode: 'solid',
                condition: { path: '/attachment_only_upstream_nodes/0/node_id', equals: 'start' },
              },
              {
                id: 'dotted-is-not-solid',
                source_node_id: 'd',
                target_node_id: 'end',
                edge_mode: 'solid',
                condition: { path: '/upstream/side', exists: false },
              },
            ],
          },
        });
        const { flowchart_run_id, outcome } = await runFlowchart(store, kit.engine, fc.flowchart_id, {
          input: { attachments: [{ name: 'doc.txt' }] },
        });
        assert.equal(outcome.status, 'completed', JSON.stringify(outcome.error));
        const [dec] = (await listNodeArtifacts(store, { flowchart_run_id, artifact_type: 'decision' })).items;
        const p = dec!.payload as { matched_connector_ids: string[]; evaluations: Array<{ reason: string }> };
        // 'dotted-is-not-solid' fails: a dotted predecessor's output is context (in upstream), never a trigger.
        assert.deepEqual(
          p.matched_connector_ids,
          ['go', 'ctx-seen', 'att-seen'],
          JSON.stringify(p.evaluations),
        );
        const run = await getFlowRun(store, kit.engine, flowchart_run_id);
        assert.equal(
          run.node_runs.filter((n) => n.flowchart_node_id === 'd').length,
          1,
          'd ran once, triggered by gate only',
        );
        assert.equal(kit.model.requests.length, 0, 'deterministic decisions need no model');
      } finally {
        await kit.close();
      }
    }));
});
