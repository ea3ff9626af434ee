/**
 * `GET /runs/:run_id/events`: a run's engine events as Server-Sent Events, resumable with
 * `Last-Event-ID` (or `?last_event_id=` for clients that cannot set headers).
 */
import { NoemaError } from '../../../core/errors.ts';
import { hasControlChars } from '../../../core/ids.ts';
import { getRunStatus } from '../../../engine/index.ts';
import { lastEventIdOf } from '../events/last-event-id.ts';
import type { AppServices, Route } from '../route.ts';

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
        const lastId = lastEventIdOf(c);
        if (run_id.length > 256 || hasControlChars(run_id))
          throw new NoemaError('UNKNOWN_RUN', 'no such run', { status: 404 });
        await getRunStatus(app.store, run_id);
        return app.events.sse.respond(app.events.feeds, run_id, lastId, c.req.raw.signal);
      },
    },
  ];
}
