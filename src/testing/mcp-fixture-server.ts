/**
 * A small real MCP server for tests, built with the SDK's McpServer and served over stdio:
 * `echo` (text), `add` (structured content), `weather_json` (JSON as text) and `fail` (isError).
 * Run it as `node src/testing/mcp-fixture-server.ts`.
 */

import { fileURLToPath } from 'node:url';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
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
  return server;
}

if (process.argv[1] === MCP_FIXTURE_PATH) {
  await createFixtureServer().connect(new StdioServerTransport());
}
