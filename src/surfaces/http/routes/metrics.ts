/**
 * `GET /metrics`: the Prometheus text exposition (behind the token like every API route; with
 * NOEMA_METRICS_PORT also on a port of its own without it). 404 when metrics are off.
 */
import { NoemaError } from '../../../core/errors.ts';
import type { AppServices, Route } from '../route.ts';

export function metricsRoutes(app: AppServices): Route[] {
  return [
    {
      method: 'GET',
      path: '/metrics',
      summary: 'Prometheus metrics (text exposition format)',
      async handle() {
        if (!app.metrics)
          throw new NoemaError('NOT_FOUND', 'metrics are off', {
            status: 404,
            hint: 'unset NOEMA_METRICS=off to collect them',
          });
        const { contentType, body } = await app.metrics.scrape();
        return new Response(body, { headers: { 'content-type': contentType } });
      },
    },
  ];
}
