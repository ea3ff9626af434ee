/** `noema serve`: the HTTP server (REST catalog, browser, event streams, /mcp) on 127.0.0.1. */
import { loadConfig } from '../../../app/config.ts';
import { openNoemaStore } from '../../../app/open.ts';
import { resolveToken } from '../../../app/token.ts';
import { type Command, EXIT_OK } from '../command.ts';
import { untilSignal } from '../signals.ts';

export const serveCommand: Command = {
  path: ['serve'],
  summary: 'Serve the HTTP API and browser on 127.0.0.1 (token-guarded)',
  flags: {
    port: { type: 'string', description: 'port to listen on (default 8787; NOEMA_PORT)' },
    db: { type: 'string', description: 'store: file path or postgres:// URL (NOEMA_DB)' },
  },
  async run({ flags, io }) {
    // Loaded here, not at the top: `noema --help` and other commands stay light.
    const { startNoemaHttp } = await import('../../http/start.ts');
    const stopped = untilSignal();
    const config = loadConfig({ db: flags.db as string | undefined, port: flags.port as string | undefined });
    const store = await openNoemaStore(config);
    const token = resolveToken(config.token, config.dataDir);
    let served: Awaited<ReturnType<typeof startNoemaHttp>>;
    try {
      served = await startNoemaHttp({
        store,
        host: config.host,
        port: config.port,
        portSetting: flags.port !== undefined ? '--port' : 'NOEMA_PORT',
        token: token.token,
        dataDir: config.dataDir,
      });
    } catch (err) {
      await store.close();
      throw err;
    }
    io.out(`noema serving on ${served.url} (store: ${store.location})`);
    if (token.generated) io.out(`server token (stored in ${token.path}, shown once): ${token.token}`);
    else if (token.path) io.out(`server token: in ${token.path}`);
    io.out(`browser: ${served.url}/login?once=${served.loginNonce} (one-time link, valid 5 minutes)`);
    const signal = await stopped;
    io.out(`received ${signal}, shutting down`);
    await served.close();
    await store.close();
    return EXIT_OK;
  },
};
