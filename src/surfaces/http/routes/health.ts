/** `GET /healthz`: the one public route; says whether the store answers. */
import type { AppServices, Route } from '../router.ts';

export function healthRoutes(app: AppServices): Route[] {
  return [
    {
      method: 'GET',
      path: '/healthz',
      public: true,
      async handle() {
        await app.store.get('SELECT 1 AS ok');
        return { json: { ok: true } };
      },
    },
  ];
}
