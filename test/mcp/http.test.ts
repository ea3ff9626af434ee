// `noema serve` exposes the MCP tools over streamable HTTP at /mcp behind the server token; a stock
// SDK client drives them, and 20 concurrent calls on one server lose no writes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startCli } from '../../src/testing/cli.ts';
import { describeEachStore } from '../../src/testing/each-store.ts';
import { httpClient } from './helpers.ts';

const TOKEN = 'test-token-0123456789abcdef';
const W = 'web';

describeEachStore('MCP over streamable HTTP in noema serve', (factory) => {
  test('the token guards /mcp; with it a stock client drives the tools and 20 concurrent calls all land', async () => {
    const { url, store, dispose } = await factory.open();
    const server = startCli(['serve', '--port', '0'], { NOEMA_DB: url, NOEMA_TOKEN: TOKEN });
    try {
      const [, base] = await server.waitFor(/serving on (http:\/\/\S+)/);
      const denied = await fetch(`${base}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      assert.equal(denied.status, 401);
      const get = await fetch(`${base}/mcp`, {
        headers: { authorization: `Bearer ${TOKEN}`, accept: 'text/event-stream' },
      });
      assert.equal(get.status, 405, 'stateless: no standalone SSE stream');
      await get.body?.cancel();
      const unknownCatalog = await fetch(`${base}/mcp/nope`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      assert.equal(unknownCatalog.status, 404);
      assert.equal(((await unknownCatalog.json()) as { code: string }).code, 'NOT_FOUND');
      const named = await httpClient(base as string, TOKEN, '/mcp/memory');
      try {
        const { tools } = await named.client.listTools();
        assert.ok(
          tools.some((t) => t.name === 'branchmind_show'),
          '/mcp/memory serves the memory catalog',
        );
      } finally {
        await named.close();
      }

      const c = await httpClient(base as string, TOKEN);
      try {
        const { tools } = await c.client.listTools();
        assert.ok(tools.some((t) => t.name === 'branchmind_show'));
        const bad = await c.call('branchmind_init', { workspace: 'has space' });
        assert.ok(!bad.ok);
        assert.equal(bad.error.code, 'INVALID_INPUT');
        await c.ok('branchmind_init', { workspace: W });
        await c.ok('tasks_create', { workspace: W, kind: 'plan', title: 'P' });
        await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            i % 2 === 0
              ? c.ok('branchmind_notes_commit', {
                  workspace: W,
                  branch: 'main',
                  doc: 'notes',
                  content: `n${i}`,
                })
              : c.ok('tasks_create', { workspace: W, kind: 'task', title: `t${i}`, plan: 'PLAN-001' }),
          ),
        );
        const shown = await c.ok<{ entries: Array<{ content: string }> }>('branchmind_show', {
          workspace: W,
          branch: 'main',
          doc: 'notes',
          limit: 50,
        });
        assert.deepEqual(
          shown.entries.map((e) => e.content).sort(),
          Array.from({ length: 10 }, (_, i) => `n${i * 2}`).sort(),
        );
        const ctx = await c.ok<{ items: Array<{ id: string }> }>('tasks_context', { workspace: W });
        assert.equal(new Set(ctx.items.map((i) => i.id)).size, 11);
        const traces = await store.get<{ n: number }>(
          "SELECT COUNT(*) AS n FROM doc_entries WHERE kind = 'trace'",
        );
        assert.equal(Number(traces?.n), 11);
      } finally {
        await c.close();
      }
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
      await dispose();
    }
  });
});
