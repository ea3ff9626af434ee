/**
 * MCP sessions kept between tool calls to a streamable HTTP server: a call on a kept session is one
 * request; a server that forgot the session (a restart) answers 404 and the call goes again on a new
 * session, processed once; a server gone drops the session. One store (SQLite): what is tested is
 * the HTTP traffic, not storage (the mcp_tool source's records run on both stores elsewhere).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, test } from 'node:test';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createFixtureServer, startFixtureHttpServer } from '../../dev/mcp-fixture-server.ts';
import type { Store } from '../../store/store.ts';
import { openTestStore } from '../../testing/stores.ts';
import { invokeSource, putMcpServer, putResponseSource } from '../index.ts';
import { closeSessions, openSessions } from './sessions.ts';

after(() => closeSessions());

async function addTool(store: Store, urlEnv: string) {
  const server = await putMcpServer(store, {
    version: 1,
    transport: { type: 'streamable_http', url_env: urlEnv },
  });
  return putResponseSource(store, {
    version: 1,
    interface: { name: 'mcp_tool', server_ref: { hash: server.hash }, tool_name: 'add', timeout_ms: 10_000 },
  });
}

test('calls to one server share a session: the first sends three requests, each later one one', async () => {
  const { store, dispose } = await openTestStore('sqlite');
  const http = await startFixtureHttpServer();
  try {
    await closeSessions();
    const source = await addTool(store, 'SESSION_MCP_URL');
    const env = { SESSION_MCP_URL: http.url };
    const add = (a: number, b: number) =>
      invokeSource(store, { source, request: { a, b }, kind: 'manual', env });
    const first = await add(1, 2);
    assert.deepEqual(first.output, { sum: 3 }, first.error?.message);
    // initialize, the initialized notification, the call (the server's own stream is not asked for).
    assert.equal(http.requests(), 3);
    for (let i = 0; i < 4; i++) assert.deepEqual((await add(i, 10)).output, { sum: i + 10 });
    assert.equal(http.requests(), 7);
    // Concurrent calls share it too.
    const together = await Promise.all([add(5, 5), add(6, 6), add(7, 7)]);
    assert.deepEqual(
      together.map((r) => r.output),
      [{ sum: 10 }, { sum: 12 }, { sum: 14 }],
    );
    assert.equal(http.requests(), 10);
    assert.equal(http.toolCalls('add'), 8);
    assert.equal(openSessions(), 1);
  } finally {
    await closeSessions();
    await http.close();
    await dispose();
  }
});

test('calls that arrive together before any session share the one being opened', async () => {
  const { store, dispose } = await openTestStore('sqlite');
  const http = await startFixtureHttpServer();
  try {
    await closeSessions();
    const source = await addTool(store, 'FIRST_MCP_URL');
    const env = { FIRST_MCP_URL: http.url };
    const outs = await Promise.all(
      [1, 2, 3].map((a) => invokeSource(store, { source, request: { a, b: 1 }, kind: 'manual', env })),
    );
    assert.deepEqual(
      outs.map((r) => r.output),
      [{ sum: 2 }, { sum: 3 }, { sum: 4 }],
    );
    // One initialize and its notification, then the three calls.
    assert.equal(http.requests(), 5);
    assert.equal(openSessions(), 1);
  } finally {
    await closeSessions();
    await http.close();
    await dispose();
  }
});

test('a session the server forgot (404) is replaced and the call sent again, processed once', async () => {
  const { store, dispose } = await openTestStore('sqlite');
  const server = await statefulServer();
  try {
    await closeSessions();
    const source = await addTool(store, 'STATEFUL_MCP_URL');
    const env = { STATEFUL_MCP_URL: server.url };
    const add = (a: number, b: number) =>
      invokeSource(store, { source, request: { a, b }, kind: 'manual', env });
    assert.deepEqual((await add(1, 1)).output, { sum: 2 });
    assert.deepEqual((await add(2, 2)).output, { sum: 4 });
    assert.equal(server.initialized(), 1);
    server.restart();
    const again = await add(3, 3);
    assert.equal(again.ok, true, again.error?.message);
    assert.deepEqual(again.output, { sum: 6 });
    assert.equal(server.initialized(), 2);
    assert.equal(server.rejected(), 1, 'the call named the forgotten session once');
    assert.equal(server.toolCalls(), 3, 'each call ran once');
  } finally {
    await closeSessions();
    await server.close();
    await dispose();
  }
});

test('a server gone fails the call and drops its session; the next call opens a new one', async () => {
  const { store, dispose } = await openTestStore('sqlite');
  let http = await startFixtureHttpServer();
  try {
    await closeSessions();
    const source = await addTool(store, 'GONE_MCP_URL');
    const port = Number(new URL(http.url).port);
    const env = { GONE_MCP_URL: http.url };
    const add = (a: number, b: number) =>
      invokeSource(store, { source, request: { a, b }, kind: 'manual', env });
    assert.deepEqual((await add(1, 2)).output, { sum: 3 });
    await http.close();
    const failed = await add(1, 2);
    assert.equal(failed.ok, false);
    assert.equal(openSessions(), 0);
    http = await startFixtureHttpServer({ port });
    assert.deepEqual((await add(2, 2)).output, { sum: 4 });
    assert.equal(http.requests(), 3, 'a new session: initialize, initialized, the call');
  } finally {
    await closeSessions();
    await http.close();
    await dispose();
  }
});

/** A stateful MCP server (session ids) that can forget its sessions, as a restarted one has. */
async function statefulServer() {
  let sessions = new Map<string, StreamableHTTPServerTransport>();
  let initialized = 0;
  let rejected = 0;
  let toolCalls = 0;
  const body = (req: IncomingMessage) =>
    new Promise<unknown>((resolve) => {
      let text = '';
      req.on('data', (d) => {
        text += d;
      });
      req.on('end', () => resolve(text ? JSON.parse(text) : undefined));
    });
  const http = createServer(async (req, res) => {
    const id = req.headers['mcp-session-id'];
    const message = await body(req);
    if (typeof id === 'string') {
      const transport = sessions.get(id);
      if (!transport) {
        rejected++;
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } }),
        );
        return;
      }
      if ((message as { method?: string })?.method === 'tools/call') toolCalls++;
      await transport.handleRequest(req, res, message);
      return;
    }
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (sid) => {
        initialized++;
        sessions.set(sid, transport);
      },
    });
    await createFixtureServer().connect(transport);
    await transport.handleRequest(req, res, message);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    initialized: () => initialized,
    rejected: () => rejected,
    toolCalls: () => toolCalls,
    restart() {
      for (const t of sessions.values()) void t.close();
      sessions = new Map();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const t of sessions.values()) void t.close();
        http.close(() => resolve());
        http.closeAllConnections();
      }),
  };
}
