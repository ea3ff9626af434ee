/**
 * `noema dev cluster --workers N`: the API (`noema serve --no-work`) and N `noema worker` processes on
 * one store (PostgreSQL), their output prefixed (`[api]`, `[worker-1]`, …), until Ctrl-C/SIGTERM
 * stops them all (each drains) — the multi-process topology of docs/deploy.md on one machine.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { type Command, DB_FLAG, EXIT_FAILED, EXIT_OK } from '../command.ts';
import { parseIntegerFlag } from '../flags.ts';
import { untilSignal } from '../signals.ts';

const DEFAULT_WORKERS = 2;

interface Member {
  name: string;
  child: ChildProcess;
  exited: Promise<number>;
}

function startMember(
  name: string,
  args: string[],
  io: { out(l: string): void; err(l: string): void },
): Member {
  // The same executable as this one: `node <noema bin> <args>`. In a process group of its own, so a
  // terminal's Ctrl-C reaches only the cluster, which stops each member once (a second signal would
  // cut a worker's drain short).
  const child = spawn(process.execPath, [process.argv[1]!, ...args], {
    env: process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  createInterface({ input: child.stdout! }).on('line', (l) => io.out(`[${name}] ${l}`));
  createInterface({ input: child.stderr! }).on('line', (l) => io.err(`[${name}] ${l}`));
  const exited = new Promise<number>((resolve) =>
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 128 : EXIT_FAILED))),
  );
  return { name, child, exited };
}

export const devClusterCommand: Command = {
  path: ['dev', 'cluster'],
  summary: 'The API (serve --no-work) and N workers on one PostgreSQL store, logs prefixed; Ctrl-C stops all',
  flags: {
    workers: {
      type: 'string',
      value: 'n',
      description: 'worker processes',
      default: String(DEFAULT_WORKERS),
    },
    port: { type: 'string', value: 'port', description: 'the API port', default: '8787', env: 'NOEMA_PORT' },
    db: DB_FLAG,
  },
  example: 'noema dev cluster --workers 2 --db postgres://127.0.0.1/noema',
  async run({ flags, io }) {
    const count =
      flags.workers === undefined
        ? DEFAULT_WORKERS
        : parseIntegerFlag(flags.workers as string, '--workers', { min: 1, max: 64 });
    const common = flags.db === undefined ? [] : ['--db', flags.db as string];
    const stopped = untilSignal();
    const members = [
      startMember(
        'api',
        ['serve', '--no-work', ...common, ...(flags.port ? ['--port', flags.port as string] : [])],
        io,
      ),
      ...Array.from({ length: count }, (_, i) => startMember(`worker-${i + 1}`, ['worker', ...common], io)),
    ];
    // Ctrl-C, or a member that stops on its own (the API refusing its store, a crash): all stop.
    const first = await Promise.race([
      stopped.then(() => null),
      ...members.map((m) => m.exited.then((code) => ({ m, code }))),
    ]);
    if (first) io.err(`[cluster] ${first.m.name} exited (${first.code}); stopping the others`);
    for (const m of members)
      if (m.child.exitCode === null && m.child.signalCode === null) m.child.kill('SIGTERM');
    const codes = await Promise.all(members.map((m) => m.exited));
    if (first) return first.code === 0 ? EXIT_FAILED : first.code;
    return codes.every((c) => c === 0) ? EXIT_OK : EXIT_FAILED;
  },
};
