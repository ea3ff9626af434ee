/**
 * The resume point of an event stream: the `Last-Event-ID` header, or `?last_event_id=` for
 * clients that cannot set headers. Ids are the stream's own numeric ids; anything else is refused.
 */
import type { Context } from 'hono';
import { invalidInput } from '../../../core/errors.ts';

export function lastEventIdOf(c: Context): number | undefined {
  const raw = c.req.header('last-event-id') ?? c.req.query('last_event_id');
  if (raw === undefined || raw === '') return undefined;
  if (!/^\d{1,16}$/.test(raw))
    throw invalidInput('Last-Event-ID must be an event id this stream sent', {
      last_event_id: raw.slice(0, 64),
    });
  return Number(raw);
}
