/**
 * The WorldPatch schema over the MCP world catalog alone: in a store nothing but MCP has touched, a
 * stock SDK client finds it (`list_components` lists it as "WorldPatch"), reads it by hash
 * (`get_json_schema`) and authors a scenario whose workflow references it.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { WORLD_PATCH_SCHEMA, WORLD_PATCH_SCHEMA_HASH } from '../../src/runtimes/world/index.ts';
import { NOEMA_BIN } from '../../src/testing/cli.ts';
import { describeEachStore } from '../../src/testing/each-store.ts';
import { PARK_BUNDLE } from '../../src/testing/world-kit.ts';
import { wrapClient } from '../mcp/helpers.ts';

const park = (path: string): Record<string, unknown> =>
  JSON.parse(readFileSync(`${PARK_BUNDLE}/${path}`, 'utf8')) as Record<string, unknown>;

describeEachStore('the WorldPatch schema is reachable over the MCP world catalog', (factory) => {
  test('a client that authors only over MCP finds the WorldPatch schema, reads it by hash and assembles a scenario on it', async () => {
    await factory.withStore(async ({ store, url }) => {
      const env: Record<string, string> = {};
      for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
      env.NOEMA_DB = url;
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [NOEMA_BIN, 'mcp', '--catalog', 'world'],
        env,
        stderr: 'pipe',
      });
      const client = new Client({ name: 'noema-world-schema-test', version: '1.0.0' });
      await client.connect(transport);
      const mcp = wrapClient(client);
      try {
        // Found by its stable name, without knowing its hash.
        const listed = await mcp.ok<{ items: Array<{ hash: string; label: string | null }> }>(
          'list_components',
          { kind: 'json_schema' },
        );
        const builtin = listed.items.filter((i) => i.label === 'WorldPatch');
        assert.deepEqual(
          builtin.map((i) => i.hash),
          [WORLD_PATCH_SCHEMA_HASH],
        );
        const got = await mcp.ok<{ hash: string; schema: unknown }>('get_json_schema', {
          hash: WORLD_PATCH_SCHEMA_HASH,
        });
        assert.equal(got.hash, WORLD_PATCH_SCHEMA_HASH);
        assert.deepEqual(got.schema, JSON.parse(JSON.stringify(WORLD_PATCH_SCHEMA)));

        // A scenario authored over MCP alone, its workflow's final schema the listed one.
        const put = async (tool: string, field: string, document: unknown) =>
          (await mcp.ok<{ hash: string }>(tool, { [field]: document })).hash;
        const chat = await put('put_response_source', 'source', park('sources/chat.json'));
        const workflow = park('workflows/ant.json');
        const node = (workflow.nodes as Array<Record<string, unknown>>)[0]!;
        node.llm_source_ref = { hash: chat };
        node.final_schema_ref = { hash: builtin[0]!.hash };
        const wf = await put('put_cognition_workflow', 'workflow', workflow);
        const profile = await put('put_cognition_profile', 'profile', {
          version: 1,
          label: 'ant',
          workflow_ref: { hash: wf },
        });
        const environment = await put('put_environment', 'environment', park('environments/park.json'));
        const ant = await put('put_entity', 'entity', park('entities/ant.json'));
        const scenario = await mcp.ok<{ hash: string }>('assemble_scenario', {
          scenario: {
            version: 1,
            label: 'ant-only',
            environments: [{ hash: environment }],
            entities: [{ hash: ant }],
            subjects: [{ entity_id: 'ant', cognition_profile_ref: { hash: profile } }],
          },
        });
        assert.match(scenario.hash, /^[0-9a-f]{64}$/);
        assert.equal(
          Number(
            (
              await store.get<{ n: number }>('SELECT COUNT(*) AS n FROM scenarios WHERE hash = ?', [
                scenario.hash,
              ])
            )?.n,
          ),
          1,
        );
      } finally {
        await mcp.close();
      }
    });
  });
});
