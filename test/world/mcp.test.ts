/**
 * The MCP `world` catalog over a real `noema mcp --catalog world` child and a stock SDK client:
 * the whole seed-004 tool list (and none of the removed cognition tools), a world authored and
 * run through it with progress notifications (read from the wire: see ../mcp/wire.ts), and bad
 * input to every tool refused with a typed error that changes nothing.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { NOEMA_BIN } from '../../src/testing/cli.ts';
import { describeEachStore } from '../../src/testing/each-store.ts';
import { startParkKit } from '../../src/testing/world-kit.ts';
import { fingerprint, wrapClient } from '../mcp/helpers.ts';
import { readWithResults, recordProgress } from '../mcp/wire.ts';

const TOOLS = [
  'put_json_schema',
  'put_response_source',
  'put_cognition_workflow',
  'put_cognition_profile',
  'put_environment',
  'put_entity',
  'assemble_scenario',
  'get_json_schema',
  'get_response_source',
  'get_cognition_workflow',
  'get_component',
  'list_components',
  'list_uses_of',
  'create_world',
  'fork_world',
  'run_turn',
  'get_world',
  'diff_turns',
  'list_attempts',
  'get_attempt',
  'list_audit_events',
  'list_source_invocations',
  'get_source_invocation',
];

const H = 'f'.repeat(64);
const U = '01a20000-0000-7000-8000-000000000000';
/** For every tool: arguments that must be refused (shape or meaning). */
const BAD: Record<string, unknown[]> = {
  put_json_schema: [{}, { schema: { type: 'no-such-type' } }],
  put_response_source: [{}, { source: { version: 1, interface: { name: 'carrier_pigeon' } } }],
  put_cognition_workflow: [
    {},
    { workflow: { version: 1, nodes: [{ id: 'a', llm_source_ref: { hash: H } }] } },
  ],
  put_cognition_profile: [
    {},
    { profile: { version: 1, label: 'p', perceive_system: 'x', workflow_ref: { hash: H } } },
    { profile: { version: 1, label: 'p', workflow_ref: { hash: H } } },
  ],
  put_environment: [{}, { environment: { version: 2, label: 'park', content: '' } }],
  put_entity: [
    {},
    {
      entity: {
        version: 1,
        entity_id: 'crumb',
        kind: 'prop',
        environment_label: 'park',
        state: 'x',
        memory: 'no',
      },
    },
  ],
  assemble_scenario: [
    {},
    {
      scenario: {
        version: 1,
        label: 's',
        environments: [{ hash: H }],
        entities: [{ hash: H }],
        subjects: [{ entity_id: 'x', cognition_profile_ref: { hash: H } }],
      },
    },
  ],
  get_json_schema: [{}, { hash: H }, { hash: 'nope' }],
  get_response_source: [{}, { hash: H }],
  get_cognition_workflow: [{}, { hash: H }],
  get_component: [{}, { hash: H }, { hash: H, kind: 'perceive_system' }],
  list_components: [{}, { kind: 'adjudication_schema' }, { kind: 'entity', cursor: 'garbage' }],
  list_uses_of: [{}, { hash: 'x' }],
  create_world: [
    {},
    { world_slug: 'Bad Slug', scenario_ref: { hash: H } },
    { world_slug: 'new', scenario_ref: { hash: H } },
    { world_slug: 'park', scenario_ref: { hash: H } },
  ],
  fork_world: [
    {},
    { world_slug: 'park', at_turn: 99, new_world_slug: 'f' },
    { world_slug: 'nowhere', at_turn: 0, new_world_slug: 'f' },
  ],
  run_turn: [{}, { world_slug: 'nowhere' }, { world_slug: 'park', extra: 1 }],
  get_world: [
    {},
    { world_slug: 'nowhere' },
    { world_slug: 'park', turn: 99 },
    { world_slug: 'park', turn: -1 },
  ],
  diff_turns: [{}, { world_slug: 'park', from_turn: 0, to_turn: 99 }],
  list_attempts: [{}, { world_slug: 'nowhere' }, { world_slug: 'park', limit: 0 }],
  get_attempt: [{}, { attempt_id: U }, { attempt_id: 'not-a-uuid' }],
  list_audit_events: [{}, { world_slug: 'nowhere' }],
  list_source_invocations: [{ limit: 1000 }, { invocation_kind: 'telepathy' }],
  get_source_invocation: [{}, { source_invocation_id: U }],
};

describeEachStore('MCP world catalog', (factory) => {
  test('the seed-004 tools, a world run through them with progress, and bad input to every tool changing nothing', async () => {
    await factory.withStore(async ({ store, url }) => {
      const kit = await startParkKit(store);
      const env: Record<string, string> = {};
      for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
      Object.assign(env, kit.env, { NOEMA_DB: url });
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [NOEMA_BIN, 'mcp', '--catalog', 'world'],
        env,
        stderr: 'pipe',
      });
      const client = new Client({ name: 'noema-world-test', version: '1.0.0' });
      await client.connect(transport);
      // Progress is read from the wire, and every progress of a call reaches the client in one batch
      // with the call's result, as a loaded machine often reads them (see wire.ts).
      const progress = recordProgress(transport);
      readWithResults(transport);
      const mcp = wrapClient(client);
      try {
        const listed = (await client.listTools()).tools;
        assert.deepEqual(listed.map((t) => t.name).sort(), [...TOOLS].sort());
        for (const t of listed) assert.ok(t.description && t.description.length > 20, t.name);
        const old = await mcp.call('put_perceive_system', { system: 'x' });
        assert.ok(!old.ok && old.error.code === 'UNKNOWN_TOOL');

        // Author through the tools: the same environment the bundle stored hashes the same.
        const env1 = await mcp.ok<{ hash: string }>('put_environment', {
          environment: JSON.parse(
            JSON.stringify(
              (
                await mcp.ok<{ content: unknown }>('get_component', {
                  hash: kit.doc('environments/park.json'),
                })
              ).content,
            ),
          ),
        });
        assert.equal(env1.hash, kit.doc('environments/park.json'));
        const wf = await mcp.ok<{ content: unknown }>('get_cognition_workflow', {
          hash: kit.doc('workflows/ant.json'),
        });
        assert.equal(
          (await mcp.ok<{ hash: string }>('put_cognition_workflow', { workflow: wf.content })).hash,
          kit.doc('workflows/ant.json'),
        );
        const uses = await mcp.ok<{ used_by: unknown[] }>('list_uses_of', {
          hash: kit.doc('workflows/ant.json'),
        });
        assert.equal(uses.used_by.length, 1);
        await mcp.ok('create_world', {
          world_slug: 'park',
          scenario_ref: { hash: kit.bundle.scenario_hash },
        });

        // The token (the SDK sends one with onprogress) makes the server report progress.
        const r = await client.callTool({ name: 'run_turn', arguments: { world_slug: 'park' } }, undefined, {
          onprogress: () => {},
        });
        const turn = r.structuredContent as {
          status: string;
          turn: number;
          attempt_id: string;
          patches: unknown[];
        };
        assert.equal(turn.status, 'committed');
        assert.equal(turn.patches.length, 2);
        const sent = progress.beforeResult;
        assert.ok(sent.includes('ambient park_weather: succeeded'), sent.join(' | '));
        assert.ok(sent.includes('subject bob: started'), sent.join(' | '));
        assert.ok(sent.includes('subject ant: patch 2 accepted'), sent.join(' | '));

        const world = await mcp.ok<{ entities: Record<string, { state: string }> }>('get_world', {
          world_slug: 'park',
        });
        assert.equal(world.entities.crumb?.state, 'gone');
        const attempt = await mcp.ok<{
          patches: Array<{ transitions: unknown[] }>;
          source_invocations: Array<{ source_invocation_id: string; llm_call_id: string | null }>;
        }>('get_attempt', { attempt_id: turn.attempt_id });
        assert.ok(attempt.patches[0]!.transitions.length > 0);
        const gen = attempt.source_invocations.find((s) => s.llm_call_id)!;
        const detail = await mcp.ok<{ llm_call: { request_json: unknown } }>('get_source_invocation', {
          source_invocation_id: gen.source_invocation_id,
          include_llm_call: true,
        });
        assert.ok(detail.llm_call.request_json);
        const invs = await mcp.ok<{ items: unknown[] }>('list_source_invocations', {
          attempt_id: turn.attempt_id,
          invocation_kind: 'model_elected_tool',
        });
        assert.equal(invs.items.length, 1);
        assert.equal(
          (await mcp.ok<{ items: unknown[] }>('list_attempts', { world_slug: 'park' })).items.length,
          1,
        );
        assert.ok(
          (await mcp.ok<{ items: unknown[] }>('list_audit_events', { world_slug: 'park' })).items.length >= 3,
        );
        const diff = await mcp.ok<{ entities: unknown[] }>('diff_turns', {
          world_slug: 'park',
          from_turn: 0,
          to_turn: 1,
        });
        assert.ok(diff.entities.length >= 4);
        await mcp.ok('fork_world', { world_slug: 'park', at_turn: 0, new_world_slug: 'what-if' });
        const fork = await mcp.ok<{ turn: number; entities: Record<string, { state: string }> }>(
          'get_world',
          { world_slug: 'what-if' },
        );
        assert.equal(fork.turn, 0);
        assert.equal(fork.entities.crumb?.state, 'a cookie crumb on the plate');

        const before = await fingerprint(store);
        for (const name of TOOLS) {
          for (const args of BAD[name] ?? []) {
            const reply = await mcp.call(name, args);
            assert.ok(!reply.ok, `${name} ${JSON.stringify(args)} was accepted`);
            assert.match(reply.error.code, /^[A-Z_]+$/);
            assert.notEqual(
              reply.error.code,
              'INTERNAL',
              `${name} ${JSON.stringify(args)}: ${reply.error.message}`,
            );
          }
        }
        assert.equal(await fingerprint(store), before, 'refused calls changed nothing');
        // Checked last: progress written after its call's result is held until a later message.
        assert.deepEqual(progress.afterResult, [], 'no progress after its call result');
      } finally {
        await mcp.close();
        await kit.close();
      }
    });
  });
});
