// The `flow` MCP catalog over stdio (`noema mcp --catalog flow`) and streamable HTTP (`/mcp/flow`):
// every llmctl_* tool with a stock SDK client, payloads equal to the runtime's REST read models.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  createFlowchart,
  decisionArtifacts,
  listNodeArtifacts,
  memoryView,
  milestoneView,
  planView,
  runFlowchart,
} from '../../src/runtimes/flow/index.ts';
import { NOEMA_BIN, startCli } from '../../src/testing/cli.ts';
import { describeEachStore } from '../../src/testing/each-store.ts';
import { EXAMPLE, EXAMPLE_SCRIPT, flowKit, readJson } from '../../src/testing/flow-kit.ts';
import { httpClient, type McpTestClient, wrapClient } from './helpers.ts';

const TOKEN = 'test-token-0123456789abcdef';
const json = (v: unknown) => JSON.parse(JSON.stringify(v));

async function flowStdio(dbUrl: string): Promise<McpTestClient> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  env.NOEMA_DB = dbUrl;
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [NOEMA_BIN, 'mcp', '--catalog', 'flow'],
    env,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'noema-test', version: '1.0.0' });
  await client.connect(transport);
  return wrapClient(client);
}

describeEachStore('MCP flow catalog', (factory) => {
  test('every llmctl_* tool over stdio answers the REST read models; bad ids are typed errors', async () =>
    factory.withStore(async ({ store, url }) => {
      const kit = await flowKit(store, readJson(EXAMPLE_SCRIPT));
      let mcp: McpTestClient | null = null;
      try {
        const fc = await createFlowchart(store, readJson(EXAMPLE));
        const { flowchart_run_id, outcome } = await runFlowchart(store, kit.engine, fc.flowchart_id, {
          input: { message: 'jam' },
        });
        assert.equal(outcome.status, 'completed');
        const arts = (await listNodeArtifacts(store, { flowchart_run_id })).items;
        const planId = arts.find((a) => a.artifact_type === 'plan')!.plan_id!;
        const milestoneId = arts.find((a) => a.artifact_type === 'milestone')!.milestone_id!;
        const memoryId = arts.find((a) => a.flowchart_node_id === 'remember')!.memory_id!;
        const decision = arts.find((a) => a.artifact_type === 'decision')!;

        mcp = await flowStdio(url);
        const { tools } = await mcp.client.listTools();
        assert.deepEqual(tools.map((t) => t.name).sort(), [
          'llmctl_get_decision_artifact',
          'llmctl_get_memory',
          'llmctl_get_milestone',
          'llmctl_get_node_artifact',
          'llmctl_get_plan',
          'llmctl_memory_add',
          'llmctl_memory_retrieve',
        ]);
        assert.deepEqual(
          await mcp.ok('llmctl_get_memory', { memory_id: memoryId, include_artifacts: true }),
          json(await memoryView(store, memoryId, { include_artifacts: true })),
        );
        const plan = await mcp.ok<{ item: { plan: { stages: unknown[] } }; artifacts: { count: number } }>(
          'llmctl_get_plan',
          {
            plan_id: planId,
            include_artifacts: true,
          },
        );
        assert.deepEqual(plan, json(await planView(store, planId, { include_artifacts: true })));
        assert.equal(plan.artifacts.count, 1);
        assert.equal(
          (await mcp.ok<Record<string, unknown>>('llmctl_get_plan', { plan_id: planId })).artifacts,
          undefined,
        );
        assert.deepEqual(
          await mcp.ok('llmctl_get_milestone', { milestone_id: milestoneId, include_artifacts: true }),
          json(await milestoneView(store, milestoneId, { include_artifacts: true })),
        );
        assert.deepEqual(
          await mcp.ok('llmctl_get_decision_artifact', {
            flowchart_id: fc.flowchart_id,
            flowchart_node_id: 'route',
          }),
          json(await decisionArtifacts(store, { flowchart_id: fc.flowchart_id, flowchart_node_id: 'route' })),
        );
        const one = await mcp.ok<{ item: { artifact_id: number } }>('llmctl_get_decision_artifact', {
          flowchart_id: fc.flowchart_id,
          flowchart_node_id: 'route',
          artifact_id: decision.artifact_id,
        });
        assert.deepEqual(one.item, json(decision));
        const page = await mcp.ok<{ items: unknown[]; count: number; limit: number; offset: number }>(
          'llmctl_get_node_artifact',
          {
            flowchart_run_id,
            limit: 2,
            offset: 1,
          },
        );
        assert.deepEqual(
          page,
          json(await listNodeArtifacts(store, { flowchart_run_id }, { limit: 2, offset: 1 })),
        );
        assert.equal(page.count, 5);
        assert.deepEqual(
          (await mcp.ok<{ item: unknown }>('llmctl_get_node_artifact', { artifact_id: decision.artifact_id }))
            .item,
          json(decision),
        );

        const added = await mcp.ok<{ memory: { memory_id: number } }>('llmctl_memory_add', {
          flowchart_id: fc.flowchart_id,
          text: 'toner is low',
        });
        const found = await mcp.ok<{ items: Array<{ memory_id: number }> }>('llmctl_memory_retrieve', {
          flowchart_id: fc.flowchart_id,
          query_text: 'toner',
          limit: 500,
        });
        assert.equal(found.items[0]?.memory_id, added.memory.memory_id);

        const missing = await mcp.call('llmctl_get_plan', { plan_id: 999999 });
        assert.equal(!missing.ok && missing.error.code, 'UNKNOWN_PLAN');
        const wrongScope = await mcp.call('llmctl_get_decision_artifact', {
          flowchart_id: fc.flowchart_id,
          flowchart_node_id: 'plan',
          artifact_id: decision.artifact_id,
        });
        assert.equal(!wrongScope.ok && wrongScope.error.code, 'UNKNOWN_ARTIFACT');
        const badArgs = await mcp.call('llmctl_get_memory', { memory_id: -1 });
        assert.equal(badArgs.ok, false);
      } finally {
        await mcp?.close();
        await kit.close();
      }
    }));

  test('POST /mcp/flow serves the same catalog over streamable HTTP', async () =>
    factory.withStore(async ({ url }) => {
      const server = startCli(['serve', '--port', '0'], { NOEMA_DB: url, NOEMA_TOKEN: TOKEN });
      try {
        const [, base] = await server.waitFor(/serving on (http:\/\/\S+)/);
        const mcp = await httpClient(base as string, TOKEN, '/mcp/flow');
        try {
          const { tools } = await mcp.client.listTools();
          assert.ok(tools.some((t) => t.name === 'llmctl_get_node_artifact'));
          const page = await mcp.ok<{ count: number }>('llmctl_get_node_artifact', {});
          assert.equal(page.count, 0);
        } finally {
          await mcp.close();
        }
      } finally {
        server.child.kill('SIGTERM');
        await server.exited;
      }
    }));
});
