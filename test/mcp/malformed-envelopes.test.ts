/**
 * Malformed JSON-RPC envelopes are the client's error on every MCP surface (stdio `noema mcp`,
 * HTTP `/mcp`, `/mcp/world`, `/mcp/flow`): `-32602` invalid params with one line naming the field,
 * or, when only `arguments` is wrong, the tool's `isError` result with `INVALID_INPUT` — never a
 * `-32603` internal error carrying a Zod dump.
 */
import assert from 'node:assert/strict';
import { createInterface } from 'node:readline';
import { test } from 'node:test';
import { startCli } from '../../src/testing/cli.ts';
import { createTestLocation, openTestStore } from '../../src/testing/stores.ts';
import { startTestHttp, TOKEN } from '../http/helpers.ts';

type Reply = {
  id?: number;
  error?: { code: number; message: string; data?: { field?: string } };
  result?: { isError?: boolean; structuredContent?: { error?: { code: string; message: string } } };
};

const INIT_PARAMS = {
  protocolVersion: '2025-06-18',
  capabilities: {},
  clientInfo: { name: 'malformed-test', version: '1.0.0' },
};

/** Each malformed request, with the field its -32602 message must name (null: a tool INVALID_INPUT). */
const CASES: Array<{ what: string; message: Record<string, unknown>; field: string | null }> = [
  {
    what: 'initialize without protocolVersion',
    message: { method: 'initialize', params: { capabilities: {}, clientInfo: INIT_PARAMS.clientInfo } },
    field: 'params.protocolVersion',
  },
  { what: 'tools/call without params', message: { method: 'tools/call' }, field: 'params' },
  {
    what: 'tools/call with a numeric tool name',
    message: { method: 'tools/call', params: { name: 7, arguments: {} } },
    field: 'params.name',
  },
  {
    what: 'tools/call with arguments: true',
    message: { method: 'tools/call', params: { name: 'branchmind_init', arguments: true } },
    field: null,
  },
  {
    what: 'tools/list with a numeric cursor',
    message: { method: 'tools/list', params: { cursor: 5 } },
    field: 'params.cursor',
  },
];

function checkReply(surface: string, c: (typeof CASES)[number], reply: Reply): void {
  const what = `${surface}: ${c.what}: ${JSON.stringify(reply)}`;
  if (c.field === null) {
    assert.equal(reply.error, undefined, what);
    assert.equal(reply.result?.isError, true, what);
    assert.equal(reply.result?.structuredContent?.error?.code, 'INVALID_INPUT', what);
    assert.match(reply.result?.structuredContent?.error?.message ?? '', /arguments/, what);
    return;
  }
  assert.equal(reply.error?.code, -32602, what);
  const message = reply.error?.message ?? '';
  assert.ok(!message.includes('\n'), `one line: ${what}`);
  assert.ok(message.includes(c.field), `names ${c.field}: ${what}`);
  assert.ok(message.length < 200, what);
  assert.equal(reply.error?.data?.field, c.field, what);
}

test('HTTP MCP endpoints answer malformed envelopes as client errors', async () => {
  const ts = await openTestStore('sqlite');
  const http = await startTestHttp(ts.store);
  try {
    for (const path of ['/mcp', '/mcp/world', '/mcp/flow']) {
      let id = 0;
      for (const c of CASES) {
        id += 1;
        const res = await fetch(`${http.url}${path}`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${TOKEN}`,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
          },
          body: JSON.stringify({ jsonrpc: '2.0', id, ...c.message }),
        });
        const reply = (await res.json()) as Reply;
        assert.equal(reply.id, id);
        checkReply(path, c, reply);
      }
      // A well-formed call on the same endpoint is unaffected.
      const ok = await fetch(`${http.url}${path}`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${TOKEN}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 99, method: 'tools/list', params: {} }),
      });
      const list = (await ok.json()) as { result?: { tools?: unknown[] } };
      assert.ok((list.result?.tools?.length ?? 0) > 0, path);
    }
  } finally {
    await http.close();
    await ts.dispose();
  }
});

test('stdio `noema mcp` answers malformed envelopes as client errors and keeps serving', async () => {
  const location = await createTestLocation('sqlite');
  const server = startCli(['mcp'], { NOEMA_DB: location.url });
  const lines = createInterface({ input: server.child.stdout })[Symbol.asyncIterator]();
  const ask = async (id: number, message: Record<string, unknown>): Promise<Reply> => {
    server.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, ...message })}\n`);
    for (;;) {
      const next = await lines.next();
      assert.ok(!next.done, `noema mcp closed stdout; stderr=${server.stderr()}`);
      const reply = JSON.parse(next.value) as Reply;
      if (reply.id === id) return reply;
    }
  };
  try {
    const init = await ask(1, { method: 'initialize', params: INIT_PARAMS });
    assert.ok(init.result, JSON.stringify(init));
    server.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    let id = 1;
    for (const c of CASES) {
      id += 1;
      checkReply('stdio', c, await ask(id, c.message));
    }
    const list = await ask(100, { method: 'tools/list', params: {} });
    assert.ok(((list.result as { tools?: unknown[] } | undefined)?.tools?.length ?? 0) > 0);
  } finally {
    server.child.kill('SIGKILL');
    await location.drop();
  }
});
