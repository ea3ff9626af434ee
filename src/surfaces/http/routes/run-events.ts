/**
 * `GET /runs/:run_id/events`: a run's engine events as Server-Sent Events, resumable with
 * `Last-Event-ID` (or `?last_event_id=` for clients that cannot set headers).
 */
import { invalidInput, NoemaError } from '../../../core/errors.ts';
import { getRunStatus } from '../../../engine/index.ts';
import { hasControl } from '../catalog/query.ts';
import type { AppServices, Route } from '../route.ts';

function lastEventId(header: string | undefined, query: string | undefined): number | undefined {
  const raw = header ?? query;
  if (raw === undefined || raw === '') return undefined;
  if (!/^\d{1,16}$/.test(raw))
    throw invalidInput('Last-Event-ID must be an event id this stream sent', {
      last_event_id: raw.slice(0, 64),
    });
  return Number(raw);
}

export function runEventRoutes(app: AppServices): Route[] {
  return [
    {
      method: 'GET',
      path: '/runs/:run_id/events',
      summary:
        'The run’s engine events as Server-Sent Events (text/event-stream), resumable with Last-Event-ID',
      params: [
        { name: 'run_id', in: 'path', required: true, schema: { type: 'string' } },
        {
          name: 'last_event_id',
          in: 'query',
          schema: { type: 'string' },
          description: 'as the Last-Event-ID header',
        },
      ],
      async handle({ c, params }) {
        if (!app.events)
          throw new NoemaError('STORE_UNAVAILABLE', 'this server streams no events', { status: 503 });
        const run_id = params.run_id ?? '';
        const lastId = lastEventId(c.req.header('last-event-id'), c.req.query('last_event_id'));
        if (run_id.length > 256 || hasControl(run_id))
          throw new NoemaError('UNKNOWN_RUN', 'no such run', { status: 404 });
        await getRunStatus(app.store, run_id);
        return app.events.sse.respond(app.events.feeds, run_id, lastId, c.req.raw.signal);
      },
    },
  ];
}
