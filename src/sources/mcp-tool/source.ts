/**
 * The `mcp_tool` source: calls one tool on a stored MCP server through the official SDK client, on
 * a session kept between calls for a streamable HTTP server (`sessions.ts`), on a process of the
 * call's own for a stdio one. `isError` results fail with the tool's own message.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { invalidInput } from '../../core/errors.ts';
import { SourceFailure, transportFailure } from '../failure.ts';
import type { ResponseSource } from '../source.ts';
import { newClient, prepareTransport } from './connect.ts';
import { normalizeToolResult, type ToolResultLike, toolText } from './normalize.ts';
import { getMcpServer, getMcpServerCached } from './servers.ts';
import { onSession } from './sessions.ts';

// JSON-RPC errors from the server (unknown tool, bad params) carry a numeric code; a request
// timeout (-32001) is left to the deadline, which names it `timeout`.
function isMcpProtocolError(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  return typeof code === 'number' && code !== -32001;
}

interface McpToolInterface {
  name: 'mcp_tool';
  server_ref: { hash: string };
  tool_name: string;
  timeout_ms: number;
}

export const mcpToolSource: ResponseSource = {
  name: 'mcp_tool',
  interfaceSchema: {
    type: 'object',
    required: ['name', 'server_ref', 'tool_name', 'timeout_ms'],
    additionalProperties: false,
    properties: {
      name: { const: 'mcp_tool' },
      server_ref: {
        type: 'object',
        required: ['hash'],
        additionalProperties: false,
        properties: { hash: { type: 'string', pattern: '^[0-9a-f]{64}$' } },
      },
      tool_name: { type: 'string', minLength: 1, maxLength: 128 },
      timeout_ms: { type: 'integer', minimum: 1, maximum: 600000 },
    },
  },
  async checkReferences(q, raw) {
    await getMcpServer(q, (raw as unknown as McpToolInterface).server_ref.hash);
  },
  async plan({ iface: raw, request, store, env, timeoutMs }) {
    const iface = raw as unknown as McpToolInterface;
    if (request === null || typeof request !== 'object' || Array.isArray(request)) {
      throw invalidInput('an mcp_tool request is the tool arguments object');
    }
    const server = await getMcpServerCached(store, iface.server_ref.hash);
    const prepared = await prepareTransport(server, env);
    return {
      request_json: request,
      metadata: { tool: iface.tool_name, server: iface.server_ref.hash, ...prepared.describe },
      timeout_ms: timeoutMs ?? iface.timeout_ms,
      secrets: prepared.secrets,
      async execute(ctx) {
        const what = `MCP tool ${iface.tool_name}`;
        let stderr = () => '';
        const connect = async () => {
          const client = await newClient();
          const opened = prepared.open();
          stderr = opened.stderr;
          try {
            await client.connect(opened.transport, { signal: ctx.signal });
          } catch (err) {
            await client.close().catch(() => undefined);
            throw err;
          }
          return client;
        };
        const call = async (client: Client) =>
          (await client.callTool(
            { name: iface.tool_name, arguments: request as Record<string, unknown> },
            undefined,
            { signal: ctx.signal, timeout: 3_600_000 },
          )) as ToolResultLike;
        try {
          let result: ToolResultLike;
          if (prepared.sessionKey) result = await onSession(prepared.sessionKey, connect, call);
          else {
            // A stdio server is a process of this call's own.
            const client = await connect();
            try {
              result = await call(client);
            } finally {
              await client.close().catch(() => undefined);
            }
          }
          const response = { response_json: result as unknown, response_text: toolText(result) || null };
          if (result.isError) {
            throw new SourceFailure(
              'tool_error',
              `${what} failed: ${toolText(result) || 'the tool reported an error'}`,
              {
                response,
              },
            );
          }
          return { ...response, output: normalizeToolResult(result) };
        } catch (err) {
          if (err instanceof SourceFailure) throw err;
          if (isMcpProtocolError(err)) {
            throw new SourceFailure('protocol', `${what}: ${(err as Error).message}`, {
              details: { mcp_code: (err as { code: number }).code },
            });
          }
          const f = transportFailure(err, { timedOut: ctx.timedOut(), cancelled: ctx.cancelled(), what });
          const log = stderr();
          if (f.failureClass === 'network' && log) f.details.server_stderr = log;
          throw f;
        }
      },
    };
  },
};
