// Malformed input for EVERY tool (wrong types, huge strings, control characters, unknown fields,
// missing or malformed workspace, non-object arguments) gets a typed error, changes nothing, and
// the server keeps serving. Cases are derived from each tool's published JSON Schema.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import fc from 'fast-check';
import type { Store } from '../../src/store/store.ts';
import { createMcpServer, noemaDispatcher } from '../../src/surfaces/mcp/server.ts';
import type { McpToolDef } from '../../src/surfaces/mcp/tool.ts';
import { describeEachStore } from '../../src/testing/each-store.ts';
import { fingerprint, wrapClient } from './helpers.ts';

const W = 'fuzz';
type Schema = {
  type?: string | string[];
  enum?: unknown[];
  properties?: Record<string, Schema>;
  required?: string[];
  minimum?: number;
  items?: Schema;
  minItems?: number;
};

// Plausible values by field name so each case carries one defect on an otherwise sensible call.
const SAMPLES: Record<string, unknown> = {
  workspace: W,
  target: 'TASK-001',
  id: 'TASK-001',
  plan: 'PLAN-001',
  branch: 'main',
  from: 'main',
  to: 'feat',
  into: 'main',
  ref: 'main',
  name: 'fresh-branch',
  doc: 'notes',
  content: 'hello',
  title: 'A title',
  kind: 'task',
};

function sample(name: string, s: Schema): unknown {
  if (name in SAMPLES) return SAMPLES[name];
  if (s.enum) return s.enum[0];
  const t = Array.isArray(s.type) ? s.type[0] : s.type;
  if (t === 'integer' || t === 'number') return s.minimum ?? 1;
  if (t === 'boolean') return false;
  if (t === 'array')
    return Array.from({ length: s.minItems ?? 0 }, () => (s.items ? sampleObject(s.items) : 'x'));
  if (t === 'object') return sampleObject(s);
  return 'x';
}

function sampleObject(s: Schema): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of s.required ?? []) out[k] = sample(k, s.properties?.[k] ?? {});
  return out;
}

function wrongTypeFor(s: Schema): unknown {
  const types = new Set(Array.isArray(s.type) ? s.type : s.type ? [s.type] : []);
  if (!types.has('string')) return 'not-the-right-type';
  if (!types.has('object')) return { nested: { deeper: [1, 2, 3] } };
  return 42.5;
}

interface Case {
  label: string;
  args: unknown;
  /** Codes acceptable for this defect (all of them typed). */
  codes?: string[];
}

// Optional fields that make a call valid, so a case's one defect is what fails it.
const BASE_EXTRA: Record<string, Record<string, unknown>> = {
  branchmind_notes_commit: { target: 'TASK-001' },
  branchmind_show: { target: 'TASK-001' },
  branchmind_graph_apply: {
    target: 'TASK-001',
    ops: [{ op: 'node_upsert', id: 'n1', type: 'note', title: 't' }],
  },
  branchmind_graph_query: { target: 'TASK-001' },
  branchmind_graph_validate: { target: 'TASK-001' },
  branchmind_graph_merge: { from: 'feat', into: 'main' },
  branchmind_think_template: { type: 'note' },
  branchmind_think_card: { target: 'TASK-001', card: { id: 'c1', type: 'note', title: 't' } },
  branchmind_think_context: { target: 'TASK-001' },
  branchmind_think_next: { target: 'TASK-001' },
  tasks_create: { plan: 'PLAN-001' },
  tasks_edit: { expected_revision: 1, title: 'edited' },
  tasks_decompose: { steps: [{ title: 'step' }] },
};
// Tools whose base call needs state the fuzz does not create (a conflict).
const NO_VALID_BASE = new Set(['branchmind_graph_conflict_show', 'branchmind_graph_conflict_resolve']);

function baseFor(tool: McpToolDef): Record<string, unknown> {
  const schema = tool.inputSchema as Schema;
  const extra = Object.fromEntries(
    Object.entries(BASE_EXTRA[tool.name] ?? {}).filter(([k]) => k in (schema.properties ?? {})),
  );
  return { ...sampleObject(schema), ...extra };
}

function casesFor(tool: McpToolDef): Case[] {
  const schema = tool.inputSchema as Schema;
  const base = baseFor(tool);
  const props = Object.entries(schema.properties ?? {});
  const cases: Case[] = [
    { label: 'empty arguments (no workspace)', args: {}, codes: ['INVALID_INPUT'] },
    {
      label: 'missing workspace',
      args: Object.fromEntries(Object.entries(base).filter(([k]) => k !== 'workspace')),
      codes: ['INVALID_INPUT'],
    },
    { label: 'workspace is a number', args: { ...base, workspace: 7 }, codes: ['INVALID_INPUT'] },
    { label: 'workspace is null', args: { ...base, workspace: null }, codes: ['INVALID_INPUT'] },
    { label: 'workspace has a space', args: { ...base, workspace: 'two words' }, codes: ['INVALID_INPUT'] },
    {
      label: 'workspace has control chars',
      args: { ...base, workspace: 'a\u0000b' },
      codes: ['INVALID_INPUT'],
    },
    { label: 'workspace is empty', args: { ...base, workspace: '' }, codes: ['INVALID_INPUT'] },
    {
      label: 'workspace is huge',
      args: { ...base, workspace: 'w'.repeat(100_000) },
      codes: ['INVALID_INPUT'],
    },
    { label: 'unknown field', args: { ...base, zzz_unknown: 1 }, codes: ['INVALID_INPUT'] },
    { label: 'arguments are an array', args: [base], codes: ['INVALID_INPUT'] },
    { label: 'arguments are a string', args: 'workspace', codes: ['INVALID_INPUT'] },
  ];
  for (const [k, p] of props) {
    if (k === 'workspace') continue;
    cases.push({ label: `${k}: wrong type`, args: { ...base, [k]: wrongTypeFor(p) } });
    const types = Array.isArray(p.type) ? p.type : [p.type];
    if (types.includes('string') || p.type === undefined) {
      cases.push({ label: `${k}: huge string`, args: { ...base, [k]: 'z'.repeat(1_000_001) } });
      cases.push({ label: `${k}: control characters`, args: { ...base, [k]: 'a\u0000b\u0007c\u001b[2J' } });
      cases.push({ label: `${k}: lone surrogate`, args: { ...base, [k]: 'a\ud800b' } });
    }
    if (types.includes('integer')) {
      cases.push({ label: `${k}: negative`, args: { ...base, [k]: -5 } });
      cases.push({ label: `${k}: fraction`, args: { ...base, [k]: 1.5 } });
    }
  }
  return cases;
}

async function seed(call: (name: string, args: unknown) => Promise<{ isError?: boolean }>): Promise<void> {
  for (const [name, args] of [
    ['branchmind_init', { workspace: W }],
    ['tasks_create', { workspace: W, kind: 'plan', title: 'P' }],
    ['tasks_create', { workspace: W, kind: 'task', title: 'T', plan: 'PLAN-001' }],
    ['branchmind_branch_create', { workspace: W, name: 'feat' }],
    ['branchmind_notes_commit', { workspace: W, branch: 'feat', doc: 'notes', content: 'n' }],
  ] as const) {
    const r = await call(name, args);
    assert.ok(!r.isError, `seed ${name}`);
  }
}

async function expectTypedAndUnchanged(
  store: Store,
  tool: McpToolDef,
  cases: Case[],
  call: (args: unknown) => Promise<{ isError?: boolean; structuredContent?: unknown }>,
): Promise<void> {
  const before = await fingerprint(store);
  for (const c of cases) {
    const r = await call(c.args);
    const body = r.structuredContent as { error?: { code: string; message: string } };
    assert.equal(
      r.isError,
      true,
      `${tool.name} / ${c.label}: must fail, got ${JSON.stringify(body).slice(0, 200)}`,
    );
    assert.match(body.error?.code ?? '', /^[A-Z][A-Z_]+$/, `${tool.name} / ${c.label}: typed code`);
    assert.notEqual(body.error?.code, 'INTERNAL', `${tool.name} / ${c.label}: ${body.error?.message}`);
    if (c.codes)
      assert.ok(
        c.codes.includes(body.error?.code ?? ''),
        `${tool.name} / ${c.label}: got ${body.error?.code}`,
      );
  }
  assert.equal(await fingerprint(store), before, `${tool.name}: malformed calls changed nothing`);
}

describeEachStore('malformed input fuzz for every MCP tool', (factory) => {
  test('schema-derived defects on every tool are typed errors that change nothing', async () => {
    const { store, dispose } = await factory.open();
    try {
      const d = noemaDispatcher();
      const ctx = { store };
      await seed((name, args) => d.call(name, args, ctx));
      const tools = d.list();
      assert.ok(tools.length >= 18);
      for (const tool of tools) {
        await expectTypedAndUnchanged(store, tool, casesFor(tool), (args) => d.call(tool.name, args, ctx));
      }
      // The same calls without their defect succeed: the defects, not the bases, were rejected.
      for (const tool of tools) {
        if (NO_VALID_BASE.has(tool.name)) continue;
        const r = await d.call(tool.name, baseFor(tool), ctx);
        assert.ok(!r.isError, `${tool.name} base call: ${JSON.stringify(r.structuredContent).slice(0, 300)}`);
      }
    } finally {
      await dispose();
    }
  });

  test('random junk arguments with an unknown field never change the store', async () => {
    const { store, dispose } = await factory.open();
    try {
      const d = noemaDispatcher();
      const ctx = { store };
      await seed((name, args) => d.call(name, args, ctx));
      const tools = d.list();
      const before = await fingerprint(store);
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...tools),
          fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 5 }),
          async (tool, junk) => {
            const args = { ...junk, workspace: W, '\u0001unknown': true };
            const r = await d.call(tool.name, args, ctx);
            assert.equal(r.isError, true);
            assert.equal((r.structuredContent as { error: { code: string } }).error.code, 'INVALID_INPUT');
          },
        ),
        { numRuns: factory.kind === 'sqlite' ? 300 : 100 },
      );
      assert.equal(await fingerprint(store), before);
    } finally {
      await dispose();
    }
  });

  test('a random value in one field of a valid call succeeds or fails typed, and a failure changes nothing', async () => {
    const { store, dispose } = await factory.open();
    try {
      const d = noemaDispatcher();
      const ctx = { store };
      await seed((name, args) => d.call(name, args, ctx));
      const fields = d
        .list()
        .flatMap((tool) =>
          Object.keys((tool.inputSchema as Schema).properties ?? {}).map((k) => [tool, k] as const),
        );
      const weird = fc.oneof(
        fc.jsonValue({ maxDepth: 3 }),
        fc.string({ unit: 'binary', maxLength: 40 }),
        fc.constantFrom(
          '',
          ' ',
          '\u0000',
          'a|b',
          'task:x',
          '../..',
          'PLAN-000',
          'TASK-999999',
          -1,
          0,
          2 ** 53,
          1e308,
          null,
        ),
      );
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...fields), weird, async ([tool, key], value) => {
          const before = await fingerprint(store);
          const r = await d.call(tool.name, { ...baseFor(tool), [key]: value }, ctx);
          if (!r.isError) return;
          const code = (r.structuredContent as { error: { code: string; message: string } }).error;
          assert.notEqual(
            code.code,
            'INTERNAL',
            `${tool.name}.${key}=${JSON.stringify(value)}: ${code.message}`,
          );
          assert.equal(
            await fingerprint(store),
            before,
            `${tool.name}.${key}=${JSON.stringify(value)} failed but changed the store`,
          );
        }),
        { numRuns: factory.kind === 'sqlite' ? 400 : 150 },
      );
    } finally {
      await dispose();
    }
  });

  test('the MCP server keeps serving after malformed calls', async () => {
    const { store, dispose } = await factory.open();
    const server = createMcpServer(store);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'fuzz', version: '1.0.0' });
    await client.connect(clientSide);
    const c = wrapClient(client);
    try {
      await c.ok('branchmind_init', { workspace: W });
      const { tools } = await client.listTools();
      for (const t of tools) {
        for (const args of [{}, { workspace: 1 }, { workspace: W, zzz: '\u0000'.repeat(10) }]) {
          const r = await c.call(t.name, args);
          assert.ok(!r.ok, `${t.name} rejects ${JSON.stringify(args)}`);
          assert.equal(r.error.code, 'INVALID_INPUT');
        }
      }
      const unknownTool = await c.call('no_such_tool', { workspace: W });
      assert.ok(!unknownTool.ok);
      assert.equal(unknownTool.error.code, 'UNKNOWN_TOOL');
      const st = await c.ok<{ workspace: string }>('branchmind_status', { workspace: W });
      assert.equal(st.workspace, W);
    } finally {
      await client.close();
      await server.close();
      await dispose();
    }
  });
});
