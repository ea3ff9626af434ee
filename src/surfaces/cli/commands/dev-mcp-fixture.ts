/** `noema dev mcp-fixture`: serves the MCP fixture server (echo, add, fail, …) over streamable HTTP. */
import { parsePort } from '../../../app/config.ts';
import { type Command, EXIT_OK } from '../command.ts';
import { untilSignal } from '../signals.ts';

export const devMcpFixtureCommand: Command = {
  path: ['dev', 'mcp-fixture'],
  summary: 'Serve the MCP fixture server (add, echo, fail, …) over streamable HTTP on 127.0.0.1',
  flags: {
    port: { type: 'string', value: 'port', description: 'port to listen on', default: 'any free port' },
  },
  async run({ flags, io }) {
    const { startFixtureHttpServer } = await import('../../../dev/mcp-fixture-server.ts');
    const stopped = untilSignal();
    const port = typeof flags.port === 'string' ? parsePort(flags.port, '--port') : 0;
    const server = await startFixtureHttpServer({ port });
    io.out(`MCP fixture serving on ${server.url}`);
    io.out(`NOEMA_MCP_FIXTURE_URL=${server.url}`);
    const signal = await stopped;
    io.out(`received ${signal}, shutting down`);
    await server.close();
    return EXIT_OK;
  },
};
