/**
 * Assembles the HTTP surface over an open store: an engine for run views and event streams, browser
 * sessions keyed in the data directory, the route table, the server, and Socket.IO on the same port.
 */
import { createEngine } from '../../engine/index.ts';
import type { Store } from '../../store/store.ts';
import { loadSessionKey, SessionKeeper } from './auth/sessions.ts';
import { attachSocketIo } from './events/socket-io.ts';
import { allRoutes } from './routes/index.ts';
import { startHttpServer } from './server.ts';

export interface NoemaHttpOptions {
  store: Store;
  host: string;
  port: number;
  portSetting: string;
  token: string;
  dataDir: string;
}

export interface NoemaHttp {
  url: string;
  /** Nonce of the one-time login link printed on start. */
  loginNonce: string;
  close(): Promise<void>;
}

export async function startNoemaHttp(options: NoemaHttpOptions): Promise<NoemaHttp> {
  const engine = createEngine(options.store, { fanOut: true });
  const sessions = new SessionKeeper(loadSessionKey(options.dataDir));
  const services = { store: options.store, engine };
  const server = await startHttpServer({
    host: options.host,
    port: options.port,
    portSetting: options.portSetting,
    token: options.token,
    sessions,
    routes: allRoutes(services),
  });
  const io = attachSocketIo(server.server, { engine, token: options.token, sessions });
  server.onClose(() => io.close());
  return {
    url: server.url,
    loginNonce: sessions.mintLoginNonce(),
    close: async () => {
      await server.close();
      await engine.close();
    },
  };
}
