/** `noema serve`: the HTTP server (REST catalog, browser, event streams, /mcp) on 127.0.0.1. */
import { loadConfig } from '../../../app/config.ts';
import { openNoemaStore, startSweep } from '../../../app/open.ts';
import { type Command, DB_FLAG, EXIT_OK } from '../command.ts';
import { portSetting } from '../flags.ts';
import { serveUntilSignal } from '../serve-until-signal.ts';

export const serveCommand: Command = {
  path: ['serve'],
  summary: 'Serve the HTTP API and browser on 127.0.0.1 (token-guarded)',
  flags: {
    port: {
      type: 'string',
      value: 'port',
      description: 'port to listen on',
      default: '8787',
      env: 'NOEMA_PORT',
    },
    db: DB_FLAG,
    'no-work': {
      type: 'boolean',
      description: 'API and browser only: runs execute on `noema worker` processes (PostgreSQL)',
    },
  },
  async run({ flags, io }) {
    const config = loadConfig({ db: flags.db as string | undefined, port: flags.port as string | undefined });
    const store = await openNoemaStore(config);
    const sweep = startSweep(store, config);
    await serveUntilSignal({
      store,
      config,
      portSetting: portSetting(flags),
      io,
      release: () => sweep.stop(),
      announce: (url) => [
        `noema serving on ${url} (store: ${store.location})${flags['no-work'] ? '; runs execute on workers' : ''}`,
      ],
      showTokenPath: true,
      ...(flags['no-work'] ? { work: false } : {}),
    });
    return EXIT_OK;
  },
};
