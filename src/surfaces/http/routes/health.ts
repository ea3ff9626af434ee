/** `GET /healthz`: the one public route; says whether the store answers (503 STORE_UNAVAILABLE if not). */
import { NoemaError, toNoemaError } from '../../../core/errors.ts';
import type { AppServices, Route } from '../route.ts';

export function healthRoutes(app: AppServices): Route[] {
  return [
    {
      method: 'GET',
      path: '/healthz',
      public: true,
      summary: 'Whether the store answers',
      async handle() {
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
        return { json: { ok: true } };
      },
    },
  ];
}
