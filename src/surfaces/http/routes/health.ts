/**
 * `GET /healthz`: the one public route; says whether the store answers (503 STORE_UNAVAILABLE if not).
 * With `?details=1` and the token, also the queue depth (runnable runs no process holds).
 */
import { NoemaError, toNoemaError } from '../../../core/errors.ts';
import type { AppServices, Route } from '../route.ts';
import { queueDepth } from '../run-work.ts';

export function healthRoutes(app: AppServices): Route[] {
  return [
    {
      method: 'GET',
      path: '/healthz',
      public: true,
      tokenOptional: true,
      summary: 'Whether the store answers; with ?details=1 and the token, the queue depth too',
      params: [
        {
          name: 'details',
          in: 'query',
          schema: { type: 'string', enum: ['1'] },
          description: 'with the token: add `queue` (runnable runs not claimed, by runtime, and a total)',
        },
      ],
      async handle(ctx) {
        const details = ctx.url.searchParams.get('details');
        if (details !== null && details !== '1')
          throw new NoemaError('INVALID_INPUT', `details must be 1, not "${details}"`, {
            status: 400,
            details: { param: 'details' },
          });
        if (details === '1' && ctx.auth === 'public')
          throw new NoemaError('UNAUTHORIZED', 'details of /healthz need the server token', {
            status: 401,
            hint: 'send "Authorization: Bearer <token>" (the token noema serve printed, or NOEMA_TOKEN)',
          });
        try {
          await app.store.get('SELECT 1 AS ok');
        } catch (err) {
          const e = toNoemaError(err);
          if (e.code === 'STORE_UNAVAILABLE') throw e;
          throw new NoemaError('STORE_UNAVAILABLE', `the store does not answer: ${e.message}`, {
            status: 503,
            retryable: true,
            cause: err,
          });
        }
        app.failures?.storeAnswered();
        if (details === '1') return { json: { ok: true, queue: await queueDepth(app.store) } };
        return { json: { ok: true } };
      },
    },
  ];
}
