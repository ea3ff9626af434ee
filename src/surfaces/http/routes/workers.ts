/** `GET /workers`: the processes that execute runs (workers and plain serve), and the queue depth. */
import { listWorkers } from '../../../engine/index.ts';
import type { AppServices, Route } from '../route.ts';
import { queueDepth } from '../run-work.ts';

export function workerRoutes(app: AppServices): Route[] {
  return [
    {
      method: 'GET',
      path: '/workers',
      summary:
        'Processes that execute runs (worker_id, host, pid, heartbeat, concurrency, runs in flight, stale) and the runnable runs none holds',
      async handle() {
        const now = Date.now();
        const [workers, queue] = await Promise.all([listWorkers(app.store, now), queueDepth(app.store, now)]);
        return { json: { workers, queue } };
      },
    },
  ];
}
