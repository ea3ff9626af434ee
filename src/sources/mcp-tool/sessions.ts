/**
 * MCP client sessions to streamable HTTP servers, kept between tool calls. A session made for each
 * call built the SDK's client (a JSON Schema compiler among it) and sent four requests — initialize,
 * the initialized notification, a GET for the server's own stream, the call — where a call on a
 * session already initialized sends one. Calls to the same server with the same credentials share
 * a session, concurrently; it closes once idle for IDLE_MS.
 *
 * A session the server no longer knows (HTTP 404 on a request naming it: expired, or the server
 * restarted) is replaced and the call sent again on a new one, once: the server did not process
 * it. Any other failure but a JSON-RPC error answered by the server drops the session, and the next
 * call starts a new one; the failing call fails as it did.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

/** How long a session stays open with no call on it (ms). */
export const IDLE_MS = 30_000;

interface Session {
  client: Promise<Client>;
  inFlight: number;
  idle: NodeJS.Timeout | null;
}

const sessions = new Map<string, Session>();

/** Whether a failure leaves the session usable: a JSON-RPC error the server answered with. */
function sessionStillGood(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  // JSON-RPC errors are negative; -32001 is the SDK's own request timeout.
  return typeof code === 'number' && code < 0 && code !== -32001;
}

/** The server does not know the session the request named (MCP: start a new one). */
function sessionGone(err: unknown): boolean {
  return (err as { code?: unknown })?.code === 404;
}

/** Forgets the session and closes it (the promise settles once it is closed). */
function drop(key: string, s: Session): Promise<void> {
  if (sessions.get(key) === s) sessions.delete(key);
  if (s.idle) clearTimeout(s.idle);
  return s.client.then((c) => c.close()).catch(() => undefined);
}

function done(key: string, s: Session): void {
  s.inFlight--;
  if (s.inFlight > 0 || sessions.get(key) !== s) return;
  s.idle = setTimeout(() => {
    if (s.inFlight === 0) void drop(key, s);
  }, IDLE_MS);
  s.idle.unref();
}

/**
 * Runs `use` on the session kept under `key` (opened by `connect` when there is none), then keeps
 * the session for the next call.
 */
export async function onSession<T>(
  key: string,
  connect: () => Promise<Client>,
  use: (client: Client) => Promise<T>,
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    let s = sessions.get(key);
    if (!s) {
      s = { client: connect(), inFlight: 0, idle: null };
      sessions.set(key, s);
    }
    s.inFlight++;
    if (s.idle) {
      clearTimeout(s.idle);
      s.idle = null;
    }
    let client: Client;
    try {
      client = await s.client;
    } catch (err) {
      // A session that could not be opened is never kept.
      done(key, s);
      void drop(key, s);
      throw err;
    }
    try {
      const out = await use(client);
      done(key, s);
      return out;
    } catch (err) {
      done(key, s);
      if (!sessionStillGood(err)) void drop(key, s);
      if (attempt === 0 && sessionGone(err)) continue;
      throw err;
    }
  }
}

/** Closes every kept session (a process shutting down, a test's end). */
export async function closeSessions(): Promise<void> {
  await Promise.all([...sessions.entries()].map(([key, s]) => drop(key, s)));
}

/** How many sessions are kept (for tests). */
export function openSessions(): number {
  return sessions.size;
}
