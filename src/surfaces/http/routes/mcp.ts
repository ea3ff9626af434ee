/**
 * `ANY /mcp` (the `memory` catalog) and `ANY /mcp/:catalog`: MCP over streamable HTTP behind the
 * server token. Stateless: each request gets its own web-standard transport and server instance
 * over the shared store and the catalog's dispatcher (tool schemas compile once). A call that
 * passes a progress token, from a client that accepts event streams, is answered as one (its
 * progress notifications, then its result); every other answer is one JSON body. Into either, stored
 * JSON a result carries (`get_world`) is spliced as it is (`RawJsonSplice`). A call's body is
 * bounded like every body (4 MiB → 413 envelope, not a reset connection).
 */

import type { ServerResponse } from 'node:http';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { giveBack, takeBytes } from '../../../core/byte-pool.ts';
import { NoemaError } from '../../../core/errors.ts';
import { loadOnce } from '../../../core/load-once.ts';
import { catalogNames, DEFAULT_CATALOG } from '../../mcp/catalogs.ts';
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

type McpServerSide = {
  createMcpServer: typeof import('../../mcp/server.ts').createMcpServer;
  RawJsonSplice: typeof import('../../mcp/raw-json.ts').RawJsonSplice;
  Transport: typeof import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js').WebStandardStreamableHTTPServerTransport;
};
/** The MCP SDK's server side, imported on the first `/mcp` request (an idle server does not carry it). */
const mcpServerSide = loadOnce(async (): Promise<McpServerSide> => {
  const [server, rawJson, http] = await Promise.all([
    import('../../mcp/server.ts'),
    import('../../mcp/raw-json.ts'),
    import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
  ]);
  return {
    createMcpServer: server.createMcpServer,
    RawJsonSplice: rawJson.RawJsonSplice,
    Transport: http.WebStandardStreamableHTTPServerTransport,
  };
});

async function serveMcp(app: AppServices, ctx: RouteContext, catalog: string): Promise<Response> {
  // Stateless: no sessions to delete and no server-initiated messages outside a request, so only
  // POST is served (clients treat 405 on GET as "no standalone SSE stream", per the MCP spec).
  if (ctx.c.req.method !== 'POST') {
    return Response.json(
      { jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: use POST' }, id: null },
      { status: 405, headers: { allow: 'POST' } },
    );
  }
  const parsedBody = await ctx.readJson();
  const { createMcpServer, RawJsonSplice, Transport } = await mcpServerSide();
  // A call that asks for progress (a progress token, from a client that reads event streams) is
  // answered as an event stream: its notifications/progress, then its result. Any other answer is
  // one JSON body. Either is spliced.
  const streamed =
    wantsProgress(parsedBody) && (ctx.c.req.header('accept') ?? '').includes('text/event-stream');
  const rawJson = new RawJsonSplice();
  const server = createMcpServer(app.store, catalog, { rawJson: () => rawJson });
  const transport = new Transport({
    sessionIdGenerator: undefined,
    enableJsonResponse: !streamed,
  });
  const close = () => {
    // Closing makes the SDK build a "Connection closed" error for the requests the server still
    // awaits from its client: none, a stateless server sends none. Its stack trace was the close's
    // largest cost, so none is captured for it; nothing else runs in this synchronous window.
    const traceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      void transport.close();
    } finally {
      Error.stackTraceLimit = traceLimit;
    }
    void server.close();
  };
  await server.connect(transport);
  // An answer's bytes go into pooled memory when the Node response is there to say when they are
  // sent (`byte-pool.ts`): given back at its `finish`.
  const outgoing = ctx.c.env?.outgoing as ServerResponse | undefined;
  const take = outgoing ? takeBytes : undefined;
  const spliced = !streamed && !Array.isArray(parsedBody) ? spliceAnswer(transport, rawJson, take) : null;
  let response: Response;
  try {
    response = await transport.handleRequest(ctx.c.req.raw, { parsedBody });
  } catch (err) {
    close();
    throw err;
  }
  // Told by its content type: reading `body` would make the whole answer a web `Response` (Hono's
  // node server writes the answer's text without one).
  if (!response.headers.get('content-type')?.startsWith('text/event-stream') || !response.body) {
    // After the SDK's handler has settled (it resolves the answer before its own cleanup): closed at
    // once, the server would abort that finished handler's signal, an AbortError built per request.
    setImmediate(close);
    const answer = spliced?.body ?? null;
    if (answer === null && !rawJson.used) return response;
    const headers = new Headers(response.headers);
    headers.delete('content-length');
    // A batch's answers are one array the SDK writes: read back and spliced.
    const body = answer ?? rawJson.splice(await response.text(), take);
    outgoing?.once('finish', () => giveBack(body));
    return new Response(body, { status: response.status, headers });
  }
  // The stream ends once every request of the body is answered (or the client goes away): only
  // then is this request's server closed. The SDK writes each message as one event, one chunk: a
  // chunk holding a stand-in is spliced whole.
  const reader = response.body.getReader();
  const token = Buffer.from(rawJson.token);
  const relay = new ReadableStream<Uint8Array>({
    async pull(controller) {
      let next: Awaited<ReturnType<typeof reader.read>>;
      try {
        next = await reader.read();
      } catch (err) {
        close();
        throw err;
      }
      if (!next.done) return controller.enqueue(spliceEvent(rawJson, token, next.value));
      controller.close();
      close();
    },
    async cancel(reason) {
      close();
      await reader.cancel(reason);
    },
  });
  return new Response(relay, { status: response.status, headers: response.headers });
}

/**
 * The answer of a single request whose result carries stored JSON, written here: the message the
 * server sends is serialized and spliced once, and the SDK is handed it without its result, so the
 * whole answer is not serialized into a web `Response` only to be read back for the splice.
 */
function spliceAnswer(
  transport: Transport,
  rawJson: InstanceType<McpServerSide['RawJsonSplice']>,
  take: ((length: number) => Buffer) | undefined,
): { body: Buffer | null } {
  const out: { body: Buffer | null } = { body: null };
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    if (out.body !== null || !rawJson.used || !('result' in message)) return send(message, options);
    out.body = rawJson.splice(JSON.stringify(message), take);
    return send({ jsonrpc: '2.0', id: message.id, result: {} }, options);
  };
  return out;
}

/** An event-stream chunk with its stand-ins spliced (as it is when it holds none). */
function spliceEvent(
  rawJson: InstanceType<McpServerSide['RawJsonSplice']>,
  token: Buffer,
  chunk: Uint8Array,
): Uint8Array {
  if (!rawJson.used) return chunk;
  const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  return bytes.includes(token) ? rawJson.splice(bytes.toString('utf8')) : chunk;
}

/** Whether a JSON-RPC body (one message or a batch) holds a request carrying a progress token. */
function wantsProgress(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some((m) => {
    const meta = (m as { params?: { _meta?: { progressToken?: unknown } } } | null)?.params?._meta;
    return meta?.progressToken !== undefined && (m as { id?: unknown }).id !== undefined;
  });
}
