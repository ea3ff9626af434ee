/**
 * Serves a store over HTTP until SIGINT/SIGTERM (`noema serve`, and `noema demo` after its
 * summary): the server token, the HTTP surface, the one-time login link, then a clean shutdown.
 * `release` frees what the caller started beside the store (the recovery sweep, the demo's
 * services) when listening fails and after the server stops; the store is closed last.
 */
import type { NoemaConfig } from '../../app/config.ts';
import { resolveToken } from '../../app/token.ts';
import type { Store } from '../../store/store.ts';
import type { CommandIO } from './command.ts';
import { untilSignal } from './signals.ts';

export interface ServeOptions {
  store: Store;
  config: NoemaConfig;
  /** The setting a port-in-use error names: `--port` when given, else `NOEMA_PORT`. */
  portSetting: string;
  io: CommandIO;
  release: () => Promise<void>;
  /** The lines announcing the server, printed once it listens. */
  announce: (url: string) => string[];
  /** Also say where an existing token is stored (a generated one is always shown, once). */
  showTokenPath: boolean;
  /** False: runs execute on workers, not here (`serve --no-work`). Default true. */
  work?: boolean;
}

export async function serveUntilSignal(options: ServeOptions): Promise<void> {
  const { store, config, io } = options;
  // Loaded here, not at the top: `noema --help` and other commands stay light.
  const { startNoemaHttp } = await import('../http/start.ts');
  const stopped = untilSignal();
  const token = resolveToken(config.token, config.dataDir);
  let served: Awaited<ReturnType<typeof startNoemaHttp>>;
  try {
    served = await startNoemaHttp({
      store,
      host: config.host,
      port: config.port,
      portSetting: options.portSetting,
      token: token.token,
      dataDir: config.dataDir,
      // A long-running process finishes the runs dead processes left behind.
      leaseMs: config.runLeaseMs,
      reclaim: { intervalMs: config.recoveryIntervalMs },
      ...(options.work === false ? { work: false } : {}),
    });
  } catch (err) {
    await options.release();
    await store.close();
    throw err;
  }
  for (const line of options.announce(served.url)) io.out(line);
  if (token.generated) io.out(`server token (stored in ${token.path}, shown once): ${token.token}`);
  else if (options.showTokenPath && token.path) io.out(`server token: in ${token.path}`);
  io.out(`browser: ${served.url}/login?once=${served.loginNonce} (one-time link, valid 5 minutes)`);
  const signal = await stopped;
  io.out(`received ${signal}, shutting down`);
  await served.close();
  await options.release();
  await store.close();
}
