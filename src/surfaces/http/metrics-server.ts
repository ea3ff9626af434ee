/**
 * `/metrics` on a port of its own (NOEMA_METRICS_PORT), without the token: for a Prometheus that
 * scrapes over a private network. Serves that one path; the API stays behind its token.
 */
import { createServer } from 'node:http';
import { NoemaError } from '../../core/errors.ts';
import type { Metrics } from '../../observability/index.ts';
import { listenOn } from './server.ts';

export interface MetricsServer {
  url: string;
  close(): Promise<void>;
}

/** Listens when NOEMA_METRICS_PORT is set (a bad value is a CONFIG_INVALID naming it); else null. */
export async function startMetricsServer(
  metrics: Metrics,
  host: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<MetricsServer | null> {
  const raw = env.NOEMA_METRICS_PORT?.trim();
  if (!raw) return null;
  const port = Number(raw);
  if (!/^\d+$/.test(raw) || port > 65_535) {
    throw new NoemaError('CONFIG_INVALID', `NOEMA_METRICS_PORT is invalid: "${raw}" is not a port`, {
      details: { variable: 'NOEMA_METRICS_PORT' },
      hint: 'use a port number (0 picks a free one)',
    });
  }
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('only GET /metrics is served here\n');
      return;
    }
    metrics.scrape().then(
      ({ contentType, body }) => res.writeHead(200, { 'content-type': contentType }).end(body),
      () => res.writeHead(500, { 'content-type': 'text/plain' }).end('collecting metrics failed\n'),
    );
  });
  const bound = await listenOn(server, host, port, 'NOEMA_METRICS_PORT');
  return {
    url: `http://${host}:${bound}/metrics`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
