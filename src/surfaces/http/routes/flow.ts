/**
 * Seed 003's flowchart REST API mounted under `/api` (handlers in ../flow/api.ts) plus its event
 * stream, `GET /api/flowcharts/:flowchart_id/runs/:flowchart_run_id/events` (../flow/events.ts).
 */
import { NoemaError } from '../../../core/errors.ts';
import { type FlowServices, flowApiRoutes } from '../flow/api.ts';
import { type FlowEventHub, flowEventRoutes } from '../flow/events.ts';
import type { AppServices, Route } from '../route.ts';

/** The app's services, with the flowchart event hub when the server streams events. */
export interface FlowAppServices extends AppServices {
  flowEvents?: FlowEventHub;
}

export function flowRoutes(app: FlowAppServices): Route[] {
  const services = (): FlowServices => {
    if (!app.engine) throw new NoemaError('STORE_UNAVAILABLE', 'this server runs no engine', { status: 503 });
    return {
      store: app.store,
      engine: app.engine,
      onBackgroundError: (err) =>
        process.emitWarning(`noema: flowchart run failed to execute: ${String(err)}`),
      ...(app.flowEvents ? { watchRun: (run) => app.flowEvents!.watch(run) } : {}),
    };
  };
  return [
    ...flowApiRoutes.map(
      (r): Route => ({
        method: r.method,
        path: `/api${r.path}`,
        summary: r.summary,
        async handle(ctx) {
          const reply = await r.handle(services(), {
            params: ctx.params,
            query: ctx.url.searchParams,
            readJson: () => ctx.readJson(),
            request_id: ctx.requestId,
            correlation_id: ctx.correlationId,
          });
          return { status: reply.status, json: reply.json };
        },
      }),
    ),
    ...flowEventRoutes(app),
  ];
}
