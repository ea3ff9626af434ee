/** `noema mcp [--catalog <name>]`: serves one MCP tool catalog over stdio (store from NOEMA_DB). Only protocol goes to stdout. */
import { loadConfig } from '../../../app/config.ts';
import { openNoemaStore, startSweep } from '../../../app/open.ts';
import { type Command, DB_FLAG, EXIT_OK, EXIT_USAGE } from '../command.ts';
import { untilSignal } from '../signals.ts';

export const mcpCommand: Command = {
  path: ['mcp'],
  summary: 'Serve an MCP tool catalog over stdio (default: reasoning memory; store from NOEMA_DB)',
  flags: {
    db: DB_FLAG,
    catalog: { type: 'string', value: 'name', description: 'the tool catalog to serve', default: 'memory' },
  },
  async run({ flags, io }) {
    // Loaded here, not at the top: `noema --help` and other commands stay light.
    const { SplicingStdioTransport } = await import('../../mcp/stdio-transport.ts');
    const { createMcpServer } = await import('../../mcp/server.ts');
    const { catalogDispatcher, catalogNames, DEFAULT_CATALOG } = await import('../../mcp/catalogs.ts');
    const catalog = (flags.catalog as string | undefined) ?? DEFAULT_CATALOG;
    if (!catalogNames().includes(catalog)) {
      io.err(`noema mcp: unknown --catalog "${catalog}" (known: ${catalogNames().join(', ')})`);
      return EXIT_USAGE;
    }
    const config = loadConfig({ db: flags.db as string | undefined });
    const store = await openNoemaStore(config);
    const sweep = startSweep(store, config);
    const dispatcher = catalogDispatcher(catalog);
    const transport = new SplicingStdioTransport();
    const server = createMcpServer(store, catalog, { rawJson: (signal) => transport.spliceFor(signal) });
    const stdinClosed = new Promise<string>((resolve) => {
      process.stdin.once('end', () => resolve('stdin closed'));
      process.stdin.once('close', () => resolve('stdin closed'));
    });
    await server.connect(transport);
    io.err(`noema mcp: serving the ${catalog} catalog on stdio (store: ${store.location})`);
    const reason = await Promise.race([untilSignal(), stdinClosed]);
    io.err(`noema mcp: ${reason}, shutting down`);
    await dispatcher.idle();
    await server.close();
    await sweep.stop();
    await store.close();
    return EXIT_OK;
  },
};
