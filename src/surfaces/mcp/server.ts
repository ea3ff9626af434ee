/**
 * The MCP server over the official SDK: the low-level `Server` publishes each tool's raw JSON
 * Schema in tools/list and routes tools/call through the dispatcher.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Store } from '../../store/store.ts';
import { ToolDispatcher } from './dispatch.ts';
import type { McpToolDef } from './tool.ts';
import { allTools } from './tools/index.ts';

export const MCP_SERVER_NAME = 'noema';
export const MCP_SERVER_VERSION = '0.1.0';

let defaultDispatcher: ToolDispatcher | undefined;

/** The dispatcher over every Noema tool (built once: schemas compile once). */
export function noemaDispatcher(): ToolDispatcher {
  defaultDispatcher ??= new ToolDispatcher(allTools());
  return defaultDispatcher;
}

export function createMcpServer(store: Store, dispatcher: ToolDispatcher = noemaDispatcher()): Server {
  const server = new Server(
    { name: MCP_SERVER_NAME, version: MCP_SERVER_VERSION },
    {
      capabilities: { tools: {} },
      instructions:
        'Noema reasoning memory. Call branchmind_init with your workspace id once, then use branchmind_* and tasks_* tools. Every stateful tool needs "workspace".',
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: dispatcher.list().map((t: McpToolDef) => ({
      name: t.name,
      description: t.description,
      inputSchema: t.inputSchema as { type: 'object'; [k: string]: unknown },
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) =>
    dispatcher.call(request.params.name, request.params.arguments ?? {}, { store }),
  );
  return server;
}
