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
        const body = ctx.req.method === 'POST' ? await ctx.readJson() : undefined;
        await transport.handleRequest(ctx.req, ctx.res, body);
        return undefined;
      },
    },
  ];
}
