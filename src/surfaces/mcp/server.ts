/**
 * The MCP server over the official SDK: the low-level `Server` publishes each tool's raw JSON
 * Schema in tools/list and routes tools/call through the dispatcher.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { Store } from '../../store/store.ts';
import { catalogDispatcher, DEFAULT_CATALOG, mcpCatalog } from './catalogs.ts';
import type { ToolDispatcher } from './dispatch.ts';
import { guardMalformedRequests } from './envelope.ts';
import type { RawJsonSplice } from './raw-json.ts';
import type { McpToolDef } from './tool.ts';

export const MCP_SERVER_NAME = 'noema';
export const MCP_SERVER_VERSION = '0.1.0';

/** The dispatcher over the default (`memory`) catalog's tools (built once: schemas compile once). */
export function noemaDispatcher(): ToolDispatcher {
  return catalogDispatcher(DEFAULT_CATALOG);
}

/** The SDK server, with malformed request envelopes answered as client errors on every transport. */
class NoemaMcpServer extends Server {
  override async connect(transport: Transport): Promise<void> {
    await super.connect(transport);
    guardMalformedRequests(transport);
  }
}

/**
 * The SDK's JSON Schema validator (for elicitation, which these servers do not ask for), shared: by
 * default each `Server` builds an Ajv instance of its own, and HTTP builds a server per request
 * (stateless), where building that Ajv was about 40 % of a `tools/list` request's CPU.
 */
let validator: AjvJsonSchemaValidator | null = null;

/**
 * An MCP server for one catalog (default `memory`); `UNKNOWN_CATALOG` for an unknown name. With
 * `rawJson` (given a call's abort signal, the splice of its answer), results carry stored JSON text as
 * stand-ins the transport splices its answer with.
 */
export function createMcpServer(
  store: Store,
  catalog: string = DEFAULT_CATALOG,
  options: { rawJson?: (signal: AbortSignal) => RawJsonSplice } = {},
): Server {
  const dispatcher = catalogDispatcher(catalog);
  validator ??= new AjvJsonSchemaValidator();
  const server = new NoemaMcpServer(
    { name: MCP_SERVER_NAME, version: MCP_SERVER_VERSION },
    {
      capabilities: { tools: {} },
      instructions: mcpCatalog(catalog).instructions,
      jsonSchemaValidator: validator,
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: dispatcher.list().map((t: McpToolDef) => ({
      name: t.name,
      description: t.description,
      inputSchema: t.inputSchema as { type: 'object'; [k: string]: unknown },
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    // A client that passes a progress token gets notifications/progress from long tools.
    const token = request.params._meta?.progressToken;
    let sent = 0;
    // Progress still being sent: the result waits for it, so a transport that awaits before writing
    // cannot let the result overtake a call's last progress (tools report it without awaiting).
    const sending = new Set<Promise<void>>();
    const progress =
      token === undefined
        ? undefined
        : (message: string): Promise<void> => {
            sent += 1;
            const send = extra
              .sendNotification({
                method: 'notifications/progress',
                params: { progressToken: token, progress: sent, message },
              })
              .catch(() => undefined);
            sending.add(send);
            void send.then(() => sending.delete(send));
            return send;
          };
    try {
      return await dispatcher.call(request.params.name, request.params.arguments ?? {}, {
        store,
        ...(progress ? { progress } : {}),
        ...(options.rawJson ? { rawJson: options.rawJson(extra.signal) } : {}),
      });
    } finally {
      await Promise.all(sending);
    }
  });
  return server;
}
