/**
 * Socket.IO attached to the HTTP server when a client first reaches `/socket.io/` (a polling
 * request or a WebSocket upgrade), not at start: Socket.IO, engine.io and ws are imported then, so
 * an idle server does not carry them. The request that asked is handed to Socket.IO once attached;
 * every other request goes to the server's own handler, as it always did.
 */
import type { Server as HttpServer, IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Server } from 'socket.io';
import type { SocketIoOptions } from './socket-io.ts';

type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

const PATH = '/socket.io/';

export interface SocketIoOnDemand {
  /** Open Socket.IO connections (0 before a client came). */
  clients(): number;
  close(): Promise<void>;
}

/**
 * `rooms` is loaded alongside Socket.IO and resolves to what serves the rooms beyond the run feeds
 * (the flowchart rooms), called once Socket.IO is attached, before any request reaches it.
 */
export function socketIoOnDemand(
  server: HttpServer,
  options: SocketIoOptions,
  rooms: () => Promise<(io: Server) => void>,
): SocketIoOnDemand {
  let attached: Awaited<ReturnType<typeof import('./socket-io.ts').attachSocketIo>> | null = null;
  let loading: Promise<void> | null = null;
  let closed = false;
  const own = server.listeners('request') as RequestListener[];
  const isSocketIo = (req: IncomingMessage) => (req.url ?? '').startsWith(PATH);

  const onRequest: RequestListener = (req, res) => {
    if (!isSocketIo(req)) {
      for (const l of own) l.call(server, req, res);
      return;
    }
    attach().then(
      () => server.emit('request', req, res),
      () => {
        res.statusCode = 503;
        res.end();
      },
    );
  };
  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (!isSocketIo(req)) return void socket.destroy();
    attach().then(
      () => server.emit('upgrade', req, socket, head),
      () => socket.destroy(),
    );
  };
  server.removeAllListeners('request');
  server.on('request', onRequest);
  server.on('upgrade', onUpgrade);

  function attach(): Promise<void> {
    loading ??= Promise.all([import('./socket-io.ts'), rooms()]).then(([{ attachSocketIo }, onAttach]) => {
      if (closed) throw new Error('the server is closing');
      // Socket.IO takes over the server's own listeners (it serves `/socket.io/`, they the rest).
      server.off('request', onRequest);
      server.off('upgrade', onUpgrade);
      for (const l of own) server.on('request', l);
      attached = attachSocketIo(server, options);
      onAttach(attached.io);
    });
    loading.catch(() => {
      loading = null;
    });
    return loading;
  }

  return {
    clients: () => attached?.io.engine.clientsCount ?? 0,
    async close() {
      closed = true;
      await attached?.close();
    },
  };
}
