/** `noema mcp`: serves the MCP tools over stdio (store from NOEMA_DB). Only protocol goes to stdout. */
import { loadConfig } from '../../../app/config.ts';
import { openNoemaStore } from '../../../app/open.ts';
import { type Command, EXIT_OK } from '../command.ts';
import { untilSignal } from '../signals.ts';

export const mcpCommand: Command = {
  path: ['mcp'],
  summary: 'Serve the reasoning-memory MCP tools over stdio (store from NOEMA_DB)',
  flags: {
    db: { type: 'string', description: 'store: file path or postgres:// URL (NOEMA_DB)' },
  },
  async run({ flags, io }) {
    // Loaded here, not at the top: `noema --help` and other commands stay light.
    const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
    const { createMcpServer, noemaDispatcher } = await import('../../mcp/server.ts');
    const config = loadConfig({ db: flags.db as string | undefined });
    const store = await openNoemaStore(config);
    const dispatcher = noemaDispatcher();
    const server = createMcpServer(store, dispatcher);
    const transport = new StdioServerTransport();
    const stdinClosed = new Promise<string>((resolve) => {
      process.stdin.once('end', () => resolve('stdin closed'));
      process.stdin.once('close', () => resolve('stdin closed'));
    });
    await server.connect(transport);
    io.err(`noema mcp: serving on stdio (store: ${store.location})`);
    const reason = await Promise.race([untilSignal(), stdinClosed]);
    io.err(`noema mcp: ${reason}, shutting down`);
    await dispatcher.idle();
    await server.close();
    await store.close();
    return EXIT_OK;
  },
};
