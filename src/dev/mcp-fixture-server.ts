/**
 * A small real MCP server for tests, built with the SDK's McpServer and served over stdio:
 * `echo` (text), `add` (structured content), `weather_json` (JSON as text) and `fail` (isError).
 * Run it as `node src/dev/mcp-fixture-server.ts`, or serve it over streamable HTTP in-process
 * with `startFixtureHttpServer` (stateless, optionally requiring a bearer token).
 */

import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

export const MCP_FIXTURE_PATH = fileURLToPath(import.meta.url);

export function createFixtureServer(): McpServer {
  const server = new McpServer({ name: 'noema-test-fixture', version: '0.1.0' });
  server.registerTool(
    'echo',
    { description: 'Returns the message as plain text.', inputSchema: { message: z.string() } },
    async ({ message }) => ({ content: [{ type: 'text', text: message }] }),
  );
  server.registerTool(
    'add',
    {
      description: 'Adds two numbers.',
      inputSchema: { a: z.number(), b: z.number() },
      outputSchema: { sum: z.number() },
    },
    async ({ a, b }) => ({
      content: [{ type: 'text', text: String(a + b) }],
      structuredContent: { sum: a + b },
    }),
  );
  server.registerTool(
    'weather_json',
    { description: 'Weather for a turn, as JSON text.', inputSchema: { turn: z.number().int() } },
    async ({ turn }) => ({
      content: [
        { type: 'text', text: JSON.stringify({ temperature_f: turn === 1 ? 72 : turn === 2 ? 64 : 55 }) },
      ],
    }),
  );
  server.registerTool(
    'fail',
    { description: 'Always fails with the given reason.', inputSchema: { reason: z.string() } },
    async ({ reason }) => ({ content: [{ type: 'text', text: `cannot comply: ${reason}` }], isError: true }),
  );
  server.registerTool(
    'sleep',
    { description: 'Answers after ms milliseconds.', inputSchema: { ms: z.number().int() } },
    async ({ ms }) => {
      await new Promise((r) => setTimeout(r, ms));
      return { content: [{ type: 'text', text: 'awake' }] };
    },
  );
  server.registerTool(
    'env',
    {
      description: 'Whether the server process has the variable, and its value.',
      inputSchema: { name: z.string() },
    },
    async ({ name }) => ({
      content: [
        {
          type: 'text',
          text: JSON.stringify({ present: name in process.env, value: process.env[name] ?? null }),
        },
      ],
    }),
  );
  return server;
}

interface JsonRpcMessage {
  method?: string;
  params?: { name?: unknown };
}

const NOT_JSON = Symbol('not JSON');

/** A POST's JSON-RPC body, read here to count tool calls (undefined for other methods). */
async function readJsonBody(
  req: IncomingMessage,
): Promise<JsonRpcMessage | JsonRpcMessage[] | undefined | typeof NOT_JSON> {
  if (req.method !== 'POST') return undefined;
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  try {
    return JSON.parse(Buffer.concat(parts).toString('utf8'));
  } catch {
    return NOT_JSON;
  }
}

/** Serves the fixture over streamable HTTP at `${url}` (path `/mcp`); 401 without the token. */
export async function startFixtureHttpServer(
  options: {
    token?: string;
    port?: number;
    /**
     * Called (and awaited) when an HTTP request arrives, before the MCP server sees it (the first is
     * the client's `initialize`): for "durable before the call" checks.
     */
    onRequest?: (request: { method: string | undefined }) => void | Promise<void>;
  } = {},
): Promise<{ url: string; requests(): number; toolCalls(name?: string): number; close(): Promise<void> }> {
  let requests = 0;
  const calls: string[] = [];
  const http = createServer(async (req, res) => {
    requests++;
    if (options.onRequest) {
      try {
        await options.onRequest({ method: req.method });
      } catch {
        res.writeHead(500).end();
        return;
      }
    }
    if (options.token && req.headers.authorization !== `Bearer ${options.token}`) {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'unauthorized' }));
      return;
    }
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    const server = createFixtureServer();
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    server
      .connect(transport)
      .then(() => readJsonBody(req))
      .then((body) => {
        if (body === NOT_JSON) {
          res.writeHead(400, { 'content-type': 'application/json' });
          res.end(
            JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }),
          );
          return;
        }
        for (const message of Array.isArray(body) ? body : [body])
          if (message?.method === 'tools/call') calls.push(String(message.params?.name));
        return transport.handleRequest(req, res, body);
      })
      .catch(() => {
        if (!res.headersSent) res.writeHead(500).end();
      });
  });
  await new Promise<void>((resolve) => http.listen(options.port ?? 0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    /** How many HTTP requests reached the server. */
    requests: () => requests,
    /** How many tool calls (of tool `name`, or of any tool) reached the server. */
    toolCalls: (name?: string) =>
      name === undefined ? calls.length : calls.filter((c) => c === name).length,
    close: () =>
      new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      }),
  };
}

if (process.argv[1] === MCP_FIXTURE_PATH) {
  await createFixtureServer().connect(new StdioServerTransport());
}
