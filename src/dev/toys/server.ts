/**
 * The toy services as one HTTP server on 127.0.0.1, each at the seed's path. `env` lists the
 * variables `http_json` sources name in `url_env` (all pointing at this server).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  announcement,
  drinkingFountain,
  inbox,
  sendText,
  type ToyReply,
  vendingMachines,
  weather,
} from './park.ts';

export interface ToyServices {
  url: string;
  env: Record<string, string>;
  /** Requests received, in order, as `{ path, body }`. */
  requests: Array<{ path: string; body: unknown }>;
  close(): Promise<void>;
}

export const TOY_URL_ENV = [
  'NOEMA_TOY_WEATHER_URL',
  'NOEMA_TOY_PA_URL',
  'NOEMA_TOY_PHONE_URL',
  'NOEMA_TOY_VENDING_URL',
  'NOEMA_TOY_FOUNTAIN_URL',
] as const;

function readJson(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (d: Buffer) => parts.push(d));
    req.on('end', () => {
      const text = Buffer.concat(parts).toString('utf8');
      try {
        resolve(text.trim() === '' ? {} : JSON.parse(text));
      } catch {
        resolve(undefined);
      }
    });
    req.on('error', reject);
  });
}

function send(res: ServerResponse, reply: ToyReply): void {
  const text = JSON.stringify(reply.body);
  res.writeHead(reply.status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

export async function startToyServices(
  options: {
    port?: number;
    vendingStock?: number;
    /** Called (and awaited) when a request arrives, before the toy answers: for "durable before the call" checks. */
    onRequest?: (request: { path: string; body: unknown }) => void | Promise<void>;
  } = {},
): Promise<ToyServices> {
  const routes: Record<string, (req: Record<string, unknown>) => ToyReply> = {
    '/weather': weather,
    '/announcement': announcement,
    '/inbox': inbox,
    '/send': sendText,
    '/buy_candy': vendingMachines(options.vendingStock ?? 1),
    '/use_drinking_fountain': drinkingFountain,
  };
  const requests: ToyServices['requests'] = [];
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const route = routes[path];
    if (!route)
      return send(res, { status: 404, body: { error: `no toy at ${path}`, paths: Object.keys(routes) } });
    if (req.method !== 'POST')
      return send(res, { status: 405, body: { error: 'use POST with a JSON body' } });
    readJson(req)
      .then(
        async (body) => {
          requests.push({ path, body });
          await options.onRequest?.({ path, body });
          if (body === null || typeof body !== 'object' || Array.isArray(body)) {
            return send(res, { status: 400, body: { error: 'the body must be a JSON object' } });
          }
          send(res, route(body as Record<string, unknown>));
        },
        () => send(res, { status: 400, body: { error: 'unreadable body' } }),
      )
      .catch((err: unknown) =>
        send(res, { status: 500, body: { error: `toy hook failed: ${String(err)}` } }),
      );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    env: Object.fromEntries(TOY_URL_ENV.map((name) => [name, url])),
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
