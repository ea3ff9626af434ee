/**
 * `noema worker`: a long-running process that executes the runs of the shared store — claims runnable
 * runs of the runtimes it registers, heartbeats their leases, finishes runs whose lease expired — and
 * drains on SIGTERM/SIGINT (stops claiming, waits up to `--drain-ms`, gives up the leases left).
 */
import { loadConfig } from '../../../app/config.ts';
import { openNoemaStore, startSweep } from '../../../app/open.ts';
import { NoemaError } from '../../../core/errors.ts';
import { type Command, DB_FLAG, EXIT_OK } from '../command.ts';
import { parseIntegerFlag } from '../flags.ts';
import { untilSignal } from '../signals.ts';

/** Runs a worker executes at once unless `--concurrency` says otherwise. */
export const DEFAULT_WORKER_CONCURRENCY = 4;
/** How long a draining worker waits for its runs in flight unless `--drain-ms` says otherwise. */
export const DEFAULT_DRAIN_MS = 10_000;
// A process that cannot stop cleanly (a call that never answers holds it) still exits this long after its drain.
const EXIT_AFTER_DRAIN_MS = 2_000;

const RUNTIMES = ['world', 'agent', 'flow'] as const;

function parseOnly(value: string): Set<(typeof RUNTIMES)[number]> {
  const names = value.split(',').map((s) => s.trim());
  const bad = names.filter((n) => !(RUNTIMES as readonly string[]).includes(n));
  if (bad.length > 0 || names.length === 0) {
    throw new NoemaError(
      'USAGE',
      `--only is invalid: "${value}" is not a comma-separated list of ${RUNTIMES.join(', ')}`,
      { details: { flag: '--only', value, choices: [...RUNTIMES] } },
    );
  }
  return new Set(names as Array<(typeof RUNTIMES)[number]>);
}

export const workerCommand: Command = {
  path: ['worker'],
  summary: 'Execute the runs of a shared store (claim, heartbeat, reclaim); drain on SIGTERM',
  flags: {
    db: DB_FLAG,
    concurrency: {
      type: 'string',
      value: 'n',
      description: 'runs executed at once',
      default: String(DEFAULT_WORKER_CONCURRENCY),
    },
    only: {
      type: 'string',
      value: 'runtimes',
      description: 'runtimes whose runs it executes, comma-separated: world, agent, flow',
      default: RUNTIMES.join(','),
    },
    'drain-ms': {
      type: 'string',
      value: 'ms',
      description: 'on SIGTERM/SIGINT, how long runs in flight may go on before their leases are given up',
      default: String(DEFAULT_DRAIN_MS),
    },
  },
  example: 'noema worker --db postgres://127.0.0.1/noema --concurrency 8',
  async run({ flags, io }) {
    const concurrency =
      flags.concurrency === undefined
        ? DEFAULT_WORKER_CONCURRENCY
        : parseIntegerFlag(flags.concurrency as string, '--concurrency', { min: 1, max: 1024 });
    const drainMs =
      flags['drain-ms'] === undefined
        ? DEFAULT_DRAIN_MS
        : parseIntegerFlag(flags['drain-ms'] as string, '--drain-ms', { min: 0, max: 3_600_000 });
    const runtimes = parseOnly((flags.only as string | undefined) ?? RUNTIMES.join(','));
    const config = loadConfig({ db: flags.db as string | undefined });
    if (config.store.kind === 'sqlite' && config.store.path === ':memory:') {
      throw new NoemaError(
        'CONFIG_INVALID',
        `${config.store.setting ?? 'NOEMA_DB'} is invalid: a worker needs a store other processes share, and an in-memory SQLite database is its own process's`,
        {
          details: { setting: config.store.setting ?? 'NOEMA_DB' },
          hint: 'give a SQLite file on this machine, or a postgres:// URL',
        },
      );
    }
    const stopped = untilSignal();
    const store = await openNoemaStore(config);
    // Traces as `serve` exports them (OTEL_*; nothing is loaded when unset). A worker serves no /metrics.
    const { startObservability } = await import('../../../observability/index.ts');
    const observability = await startObservability({ env: process.env, store, metrics: false }).catch(
      async (err: unknown) => {
        await store.close();
        throw err;
      },
    );
    const sweep = startSweep(store, config);
    const { startWorker } = await import('./worker-process.ts');
    const worker = startWorker(store, {
      runtimes,
      concurrency,
      leaseMs: config.runLeaseMs,
      intervalMs: config.recoveryIntervalMs,
    });
    io.out(
      `noema worker ${worker.owner} working on ${store.location} (runtimes: ${[...runtimes].join(', ')}; concurrency ${concurrency}; lease ${config.runLeaseMs} ms)`,
    );
    // The reclaimer's timer does not hold the process: this does, until the signal.
    const alive = setInterval(() => {}, 1 << 30);
    const signal = await stopped;
    clearInterval(alive);
    io.out(`received ${signal}, draining (up to ${drainMs} ms)`);
    const report = await worker.drain(drainMs);
    io.out(
      report.settled
        ? 'drained: every run in flight stopped here'
        : `drained: ${report.released} run(s) still in flight released to other processes`,
    );
    await sweep.stop();
    // Spans still queued are sent, within a bound: a collector that is down does not hold the exit.
    await observability.shutdown(3_000);
    await store.close();
    setTimeout(() => process.exit(EXIT_OK), EXIT_AFTER_DRAIN_MS).unref();
    return EXIT_OK;
  },
};
