/**
 * One OpenAI-compatible endpoint in front of the demo's three scripted models, for the runtimes the
 * demo serves: they read a single `NOEMA_LLM_BASE_URL` (the operator's environment), while each part
 * of the demo answers from its own script. A request goes to the flowchart's model when it names
 * that model (the `@flow` alias), to the park's when it carries a world turn (`x-noema-turn`, sent
 * on every world generation), and to the agent's otherwise. Responses (streams included) pass
 * through unchanged.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ModelRoutes {
  /** Base URLs (`…/v1`) of the scripted models. */
  world: string;
  agent: string;
  flow: string;
  /** The model name the flowchart's `@flow` alias resolves to. */
  flowModel: string;
}

export interface ModelRouter {
  url: string;
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (d: Buffer) => parts.push(d));
    req.on('end', () => resolve(Buffer.concat(parts)));
    req.on('error', reject);
  });
}

/** Which scripted model answers a request. */
export function routeOf(routes: ModelRoutes, headers: IncomingMessage['headers'], body: Buffer): string {
  let model: unknown;
  try {
    model = (JSON.parse(body.toString('utf8')) as { model?: unknown }).model;
  } catch {
    model = undefined;
  }
  if (model === routes.flowModel) return routes.flow;
  if (headers['x-noema-turn'] !== undefined) return routes.world;
  return routes.agent;
}

async function forward(routes: ModelRoutes, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const body = await readBody(req);
  const base = routeOf(routes, req.headers, body);
  const path = (req.url ?? '/').replace(/^\/v1/, '');
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers))
    if (typeof v === 'string' && k !== 'host' && k !== 'content-length' && k !== 'connection') headers[k] = v;
  // A caller that gives up (a cancelled turn, a timeout) stops the scripted model's stream too.
  const gaveUp = new AbortController();
  res.on('close', () => gaveUp.abort());
  const upstream = await fetch(`${base}${path}`, {
    method: req.method ?? 'GET',
    headers,
    signal: gaveUp.signal,
    ...(body.length > 0 ? { body } : {}),
  });
  const out: Record<string, string> = {};
  upstream.headers.forEach((v, k) => {
    if (k !== 'content-length' && k !== 'transfer-encoding' && k !== 'connection') out[k] = v;
  });
  res.writeHead(upstream.status, out);
  if (upstream.body) for await (const chunk of upstream.body) res.write(chunk);
  res.end();
}

export async function startModelRouter(routes: ModelRoutes): Promise<ModelRouter> {
  const server = createServer((req, res) => {
    forward(routes, req, res).catch((err: unknown) => {
      if (res.headersSent) res.destroy();
      else {
        const text = JSON.stringify({ error: { message: `demo model router: ${String(err)}` } });
        res.writeHead(502, { 'content-type': 'application/json' }).end(text);
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
