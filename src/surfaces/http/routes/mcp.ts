/**
 * `ANY /mcp` (the `memory` catalog) and `ANY /mcp/:catalog`: MCP over streamable HTTP behind the
 * server token. Stateless: each request gets its own transport and server instance over the shared
 * store and the catalog's dispatcher (tool schemas compile once).
 */
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { NoemaError } from '../../../core/errors.ts';
import { catalogNames, DEFAULT_CATALOG } from '../../mcp/catalogs.ts';
import { createMcpServer } from '../../mcp/server.ts';
import type { AppServices, Route, RouteContext } from '../router.ts';

export function mcpRoutes(app: AppServices): Route[] {
  return [
    { method: 'ANY', path: '/mcp', handle: (ctx) => serveMcp(app, ctx, DEFAULT_CATALOG) },
    {
      method: 'ANY',
      path: '/mcp/:catalog',
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

async function serveMcp(app: AppServices, ctx: RouteContext, catalog: string): Promise<undefined> {
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
  const server = createMcpServer(app.store, catalog);
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
}
