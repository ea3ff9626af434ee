// Deeply nested JSON in any argument is a typed INVALID_INPUT that changes nothing (never a stack
// overflow reported as INTERNAL), control characters are refused at any depth, and every tool
// error carries `details` and `retryable` beside `recovery`.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createMcpServer } from '../../src/surfaces/mcp/server.ts';
import { describeEachStore } from '../../src/testing/each-store.ts';
import { fingerprint, type McpTestClient, wrapClient } from './helpers.ts';

const W = 'deep';

function nested(depth: number, leaf: unknown = 1): unknown {
  let v: unknown = leaf;
  for (let i = 0; i < depth; i++) v = i % 2 === 0 ? { k: v } : [v];
  return v;
}

async function connect(store: Parameters<typeof createMcpServer>[0]): Promise<McpTestClient> {
  const [a, b] = InMemoryTransport.createLinkedPair();
  const server = createMcpServer(store);
  await server.connect(a);
  const client = new Client({ name: 'deep-test', version: '1.0.0' });
  await client.connect(b);
  return wrapClient(client);
}

describeEachStore('MCP arguments: depth and control characters', (factory) => {
  test('arguments nested past the limit are INVALID_INPUT at any depth and change nothing', async () => {
    await factory.withStore(async ({ store }) => {
      const mcp = await connect(store);
      try {
        await mcp.ok('branchmind_init', { workspace: W });
        const before = await fingerprint(store);
        for (const depth of [80, 5_000, 100_000]) {
          const r = await mcp.call('branchmind_notes_commit', {
            workspace: W,
            doc: 'notes',
            content: 'deep',
            meta: { x: nested(depth) },
          });
          assert.equal(r.ok, false, `depth ${depth} was accepted`);
          if (r.ok) continue;
          assert.equal(r.error.code, 'INVALID_INPUT', `depth ${depth}: ${r.error.message}`);
          assert.match(r.error.message, /nests deeper than 64 levels/);
          const error = r.error as unknown as {
            details: { max_depth: number; path: string };
            retryable: boolean;
          };
          assert.equal(error.details.max_depth, 64);
          assert.match(error.details.path, /^\/meta\/x\//);
          assert.equal(error.retryable, false);
        }
        assert.equal(await fingerprint(store), before);
        // Under the limit the same shape is a normal call.
        await mcp.ok('branchmind_notes_commit', {
          workspace: W,
          doc: 'notes',
          content: 'shallow',
          meta: { x: nested(40) },
        });
      } finally {
        await mcp.close();
      }
    });
  });

  test('control characters deep inside an argument (values and keys) are INVALID_INPUT', async () => {
    await factory.withStore(async ({ store }) => {
      const mcp = await connect(store);
      try {
        await mcp.ok('branchmind_init', { workspace: W });
        const before = await fingerprint(store);
        for (const meta of [{ x: nested(50, 'a\u0000b') }, { x: nested(50, { 'bad\u0007key': 1 }) }]) {
          const r = await mcp.call('branchmind_notes_commit', {
            workspace: W,
            doc: 'notes',
            content: 'c',
            meta,
          });
          assert.equal(r.ok, false);
          if (r.ok) continue;
          assert.equal(r.error.code, 'INVALID_INPUT');
          assert.match(r.error.message, /control characters/);
          assert.match(
            String((r.error as unknown as { details: { path: string } }).details.path),
            /^\/meta\/x\//,
          );
        }
        assert.equal(await fingerprint(store), before);
      } finally {
        await mcp.close();
      }
    });
  });

  test('a tool error carries details and retryable beside recovery', async () => {
    await factory.withStore(async ({ store }) => {
      const mcp = await connect(store);
      try {
        const r = await mcp.call('branchmind_status', { workspace: 'never-made' });
        assert.equal(r.ok, false);
        if (r.ok) return;
        const error = r.error as unknown as Record<string, unknown>;
        assert.equal(error.code, 'UNKNOWN_WORKSPACE');
        assert.equal(typeof error.details, 'object');
        assert.equal(error.retryable, false);
        assert.match(String(error.recovery), /branchmind_init/);
      } finally {
        await mcp.close();
      }
    });
  });
});
