/** `noema workers`: the processes that execute runs on a store (workers and plain serve), and the queue depth. */
import { loadConfig } from '../../../app/config.ts';
import { openNoemaStore } from '../../../app/open.ts';
import { type Command, DB_FLAG, EXIT_OK } from '../command.ts';

const iso = (ms: number) => new Date(ms).toISOString();

export const workersCommand: Command = {
  path: ['workers'],
  summary: 'List the processes executing runs on a store, and the runs waiting for one',
  flags: { db: DB_FLAG },
  example: 'noema workers --db postgres://127.0.0.1/noema',
  async run({ flags, io }) {
    const config = loadConfig({ db: flags.db as string | undefined });
    const store = await openNoemaStore(config);
    try {
      const { listWorkers } = await import('../../../engine/index.ts');
      const { queueDepth } = await import('../../http/run-work.ts');
      const now = Date.now();
      const workers = await listWorkers(store, now);
      if (workers.length === 0) io.out('no process executes runs on this store');
      for (const w of workers)
        io.out(
          `${w.worker_id}  ${w.kind}  host ${w.host}  pid ${w.pid}  started ${iso(w.started_at)}  heartbeat ${iso(w.heartbeat_at)}  concurrency ${w.concurrency}  in flight ${w.runs_in_flight}${w.stale ? '  STALE' : ''}`,
        );
      const queue = await queueDepth(store, now);
      const kinds = Object.entries(queue.by_kind).map(([k, n]) => `${k} ${n}`);
      io.out(
        `queue: ${queue.total} runnable run(s) not claimed${kinds.length > 0 ? ` (${kinds.join(', ')})` : ''}`,
      );
    } finally {
      await store.close();
    }
    return EXIT_OK;
  },
};
