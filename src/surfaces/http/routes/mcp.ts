/**
 * `ANY /mcp` (the `memory` catalog) and `ANY /mcp/:catalog`: MCP over streamable HTTP behind the
 * server token. Stateless: each request gets its own web-standard transport and server instance
 * over the shared store and the catalog's dispatcher (tool schemas compile once). A call's body is
 * bounded like every body (4 MiB → 413 envelope, not a reset connection).
 */
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { NoemaError } from '../../../core/errors.ts';
import { catalogNames, DEFAULT_CATALOG } from '../../mcp/catalogs.ts';
import { createMcpServer } from '../../mcp/server.ts';
import type { AppServices, Route, RouteContext } from '../route.ts';

export function mcpRoutes(app: AppServices): Route[] {
  return [
    {
      method: 'ANY',
      path: '/mcp',
      internal: true,
      summary: 'MCP over streamable HTTP (the memory catalog)',
      handle: (ctx) => serveMcp(app, ctx, DEFAULT_CATALOG),
    },
    {
      method: 'ANY',
      path: '/mcp/:catalog',
      internal: true,
      summary: 'MCP over streamable HTTP (a named tool catalog)',
      handle: (ctx) => {
        const catalog = ctx.params.catalog ?? '';
        if (!catalogNames().includes(catalog))
          throw new NoemaError('NOT_FOUND', `unknown MCP catalog "${catalog}"`, {
            status: 404,
            details: { catalog, known: catalogNames() },
          });
        return serveMcp(app, ctx, catalog);
      },
    },
  ];
}

async function serveMcp(app: AppServices, ctx: RouteContext, catalog: string): Promise<Response> {
  // Stateless: no sessions to delete and no server-initiated messages to stream, so only POST
  // is served (clients treat 405 on GET as "no standalone SSE stream", per the MCP spec).
  if (ctx.c.req.method !== 'POST') {
    return Response.json(
      { jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: use POST' }, id: null },
      { status: 405, headers: { allow: 'POST' } },
    );
  }
  const parsedBody = await ctx.readJson();
  const server = createMcpServer(app.store, catalog);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    return await transport.handleRequest(ctx.c.req.raw, { parsedBody });
  } finally {
    void transport.close();
    void server.close();
  }
}
