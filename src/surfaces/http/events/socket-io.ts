/**
 * Socket.IO on the HTTP server's port (path `/socket.io/`). The handshake is authenticated like any
 * request: the server token (`auth: { token }` or an `Authorization: Bearer` header), or the browser
 * session cookie from this origin. A client emits `subscribe` `{ run_id, last_event_id? }` (acked with
 * `{ ok, run_id }` or `{ ok: false, error }`) and joins the room `run:<run_id>`; each engine event is
 * emitted to the room under its type (`run.updated`, `node.finished`, …) with its `id`, and `resync`
 * when events may have been missed. `unsubscribe` `{ run_id }` leaves the room. Seed 003's flowchart
 * events have their own subscription, `flowchart:subscribe` (`../flow/events.ts`).
 */
import type { Server as HttpServer } from 'node:http';
import { Server } from 'socket.io';
import { tokenMatches } from '../../../app/token.ts';
import { errorEnvelope, NoemaError } from '../../../core/errors.ts';
import { hasControlChars } from '../../../core/ids.ts';
import { getRunStatus } from '../../../engine/index.ts';
import type { Store } from '../../../store/store.ts';
import { bearerToken } from '../auth/guard.ts';
import { SESSION_COOKIE, type SessionKeeper } from '../auth/sessions.ts';
import type { FeedSink, RunFeeds } from './feed.ts';

export interface SocketIoOptions {
  store: Store;
  feeds: RunFeeds;
  token: string;
  sessions: SessionKeeper;
}

export const runRoom = (run_id: string): string => `run:${run_id}`;

function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return v.join('=');
  }
  return undefined;
}

export function attachSocketIo(
  server: HttpServer,
  options: SocketIoOptions,
): { io: Server; close(): Promise<void> } {
  const io = new Server(server, { serveClient: false, cors: { origin: false } });
  io.use((socket, next) => {
    const hs = socket.handshake;
    const presented =
      typeof hs.auth?.token === 'string' ? hs.auth.token : bearerToken(hs.headers.authorization);
    if (presented !== null && presented !== undefined) {
      return tokenMatches(presented, options.token)
        ? next()
        : next(new Error('UNAUTHORIZED: wrong server token'));
    }
    // A cookie is sent by the browser on its own: accept it only from this server's own pages.
    const origin = hs.headers.origin;
    const sameOrigin = origin === undefined || origin === `http://${hs.headers.host}`;
    const refused = () => next(new Error('UNAUTHORIZED: send auth.token or log in at /login'));
    if (!sameOrigin) return refused();
    // Checked against the store's revocations, as every HTTP route is: a logout on another server counts.
    options.sessions
      .verifyDurably(cookieValue(hs.headers.cookie, SESSION_COOKIE))
      .then((session) => (session ? next() : refused()), refused);
  });

  // One feed sink per room: events reach every socket of the room through Socket.IO's adapter.
  const rooms = new Map<string, () => void>();
  const sinkFor = (run_id: string): FeedSink => ({
    event: (event, id) => {
      io.to(runRoom(run_id)).emit(event.type, { ...event, id });
    },
    resync: (info) => io.to(runRoom(run_id)).emit('resync', info),
  });
  io.of('/').adapter.on('delete-room', (room: string) => {
    const leave = rooms.get(room);
    if (leave) {
      rooms.delete(room);
      leave();
    }
  });

  io.on('connection', (socket) => {
    socket.on('subscribe', async (msg: unknown, ack?: (answer: unknown) => void) => {
      const reply = typeof ack === 'function' ? ack : () => {};
      try {
        const { run_id, last_event_id } = (msg ?? {}) as { run_id?: unknown; last_event_id?: unknown };
        if (
          typeof run_id !== 'string' ||
          run_id.length === 0 ||
          run_id.length > 256 ||
          hasControlChars(run_id)
        ) {
          throw new NoemaError('INVALID_INPUT', 'subscribe needs { run_id: string }', { status: 400 });
        }
        if (last_event_id !== undefined && !Number.isSafeInteger(last_event_id)) {
          throw new NoemaError('INVALID_INPUT', 'last_event_id must be an event id', { status: 400 });
        }
        await getRunStatus(options.store, run_id);
        const room = runRoom(run_id);
        if (!rooms.has(room)) rooms.set(room, await options.feeds.join(run_id, sinkFor(run_id)));
        // Replay to this socket only, then join: synchronous, so nothing falls in between.
        const replay: FeedSink = {
          event: (event, id) => {
            socket.emit(event.type, { ...event, id });
          },
          resync: (info) => socket.emit('resync', info),
        };
        if (last_event_id !== undefined) options.feeds.replay(run_id, replay, last_event_id as number);
        void socket.join(room);
        reply({ ok: true, run_id });
      } catch (err) {
        reply({ ok: false, error: errorEnvelope(err, { request_id: socket.id }) });
      }
    });
    socket.on('unsubscribe', async (msg: unknown) => {
      const run_id = (msg as { run_id?: unknown } | null)?.run_id;
      if (typeof run_id === 'string') await socket.leave(runRoom(run_id));
    });
  });

  return {
    io,
    close: async () => {
      io.disconnectSockets(true);
      for (const leave of rooms.values()) leave();
      rooms.clear();
      // io.close() would also close the HTTP server, which the HTTP surface closes itself.
      io.engine.close();
    },
  };
}
