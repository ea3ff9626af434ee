/**
 * `ANY /mcp`: MCP over streamable HTTP behind the server token. Stateless: each request gets its
 * own transport and server instance over the shared store and dispatcher (tool schemas compile once).
 */
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createMcpServer } from '../../mcp/server.ts';
import type { AppServices, Route } from '../router.ts';

export function mcpRoutes(app: AppServices): Route[] {
  return [
    {
      method: 'ANY',
      path: '/mcp',
      async handle(ctx) {
        // Stateless: no sessions to delete and no server-initiated messages to stream, so only POST
        // is served (clients treat 405 on GET as "no standalone SSE stream", per the MCP spec).
        if (ctx.req.method !== 'POST') {
          ctx.res.writeHead(405, { allow: 'POST', 'content-type': 'application/json' });
          ctx.res.end(
            JSON.stringify({
              jsonrpc: '2.0',
              error: { code: -32000, message: 'Method not allowed: use POST' },
              id: null,
            }),
          );
          return undefined;
        }
        const server = createMcpServer(app.store);
        const transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: undefined,
          enableJsonResponse: true,
        });
        ctx.res.on('close', () => {
          void transport.close();
          void server.close();
        });
        await server.connect(transport);
        await transport.handleRequest(ctx.req, ctx.res, await ctx.readJson());
        return undefined;
      },
    },
  ];
}
