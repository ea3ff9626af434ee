/**
 * Idle memory of what users run: `noema serve` and `noema worker` started as a user starts them
 * (`bin/noema.js`, a SQLite file), each measured from outside once it is ready — `serve` after its
 * first `GET /healthz` answered, the worker after its ready line — then an idle second, no forced
 * GC; beside a bare `node:http` server (same node binary, nothing else imported) spawned and measured
 * the same way, in the same run. The sides take turns within each repeat (the order rotates), and
 * each figure is the median over the repeats. Target: `noema serve` ≤ 1.5× the bare server.
 * Every server listens on a free port of 127.0.0.1 (port 0) and says which.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Bench } from './lib/harness.ts';

const root = join(import.meta.dirname, '..');
const LISTENING = /listening on (http:\/\/\S+)/;
const SERVING = /noema serving on (http:\/\/[^\s/]+)/;
const serve = (db: string) => ['bin/noema.js', 'serve', '--db', db, '--port', '0'];
const IDLE_MS = 1000;
const BARE_SERVER = `
import { createServer } from 'node:http';
const server = createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end('{"ok":true}');
});
server.listen(0, '127.0.0.1', () => console.log('listening on http://127.0.0.1:' + server.address().port));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
`;

interface Memory {
  rss_mb: number;
  anon_mb: number;
  file_mb: number;
}

/** RSS of process `pid` and its anonymous and file-backed parts, from one reading of smaps_rollup. */
function memoryOf(pid: number): Memory {
  const text = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? NaN);
  const rss = kb('Rss');
  const anon = kb('Anonymous');
  return { rss_mb: rss / 1024, anon_mb: anon / 1024, file_mb: (rss - anon) / 1024 };
}

/** Resolves with the match when the child prints a line matching `ready`; rejects if it exits or stays silent 60 s. */
function waitForLine(child: ChildProcess, ready: RegExp): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`no ready line after 60 s: ${out.slice(-400)}`)), 60_000);
    const onData = (d: Buffer) => {
      out += d;
      const m = ready.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (d: Buffer) => {
      out += d;
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited ${code} before it was ready: ${out.slice(-400)}`));
    });
  });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

/**
 * Starts `args` under this node, waits for its ready line — and, when the line's first group is a
 * server's URL, for its first `GET /healthz` — idles, measures.
 */
async function idleMemory(args: string[], ready: RegExp, env: NodeJS.ProcessEnv): Promise<Memory> {
  const child = spawn(process.execPath, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    const url = (await waitForLine(child, ready))[1];
    if (url !== undefined) {
      const res = await fetch(`${url}/healthz`);
      if (res.status !== 200) throw new Error(`GET /healthz answered ${res.status}`);
      await res.arrayBuffer();
    }
    await new Promise((r) => setTimeout(r, IDLE_MS));
    return memoryOf(child.pid!);
  } finally {
    await stop(child);
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? Number.NaN;
}

type SideName = 'bare' | 'serve first' | 'serve second' | 'worker';

export default {
  name: 'serve',
  description: 'idle RSS of noema serve and noema worker as served processes vs a bare node:http server',
  async run(ctx) {
    const repeats = ctx.quick ? 1 : 3;
    const dir = mkdtempSync(join(tmpdir(), 'noema-bench-serve-'));
    const figures = new Map<SideName, Memory[]>();
    const add = (side: SideName, m: Memory) => figures.set(side, [...(figures.get(side) ?? []), m]);
    // Noema's processes start as `npx noema …` does: the compile cache filled by the first start
    // (a short-lived child) and read by later ones; the token kept beside the database.
    const noemaEnv = (cache: string): NodeJS.ProcessEnv => ({
      ...process.env,
      NODE_COMPILE_CACHE: cache,
      NOEMA_DATA_DIR: join(dir, 'data'),
    });
    try {
      for (let r = 0; r < repeats; r++) {
        const cache = join(dir, `cache-${r}`);
        const db = join(dir, `noema-${r}.db`);
        const sides: Array<[SideName, () => Promise<Memory>]> = [
          ['bare', () => idleMemory(['--input-type=module', '-e', BARE_SERVER], LISTENING, process.env)],
          ['serve first', () => idleMemory(serve(db), SERVING, noemaEnv(cache))],
        ];
        // The second start and the worker read the cache the first start filled: they follow it.
        const after: Array<[SideName, () => Promise<Memory>]> = [
          ['serve second', () => idleMemory(serve(db), SERVING, noemaEnv(cache))],
          [
            'worker',
            () =>
              idleMemory(
                ['bin/noema.js', 'worker', '--db', db],
                /noema worker \S+ working on/,
                noemaEnv(cache),
              ),
          ],
        ];
        const order = r % 2 === 0 ? [...sides, ...after] : [sides[1]!, ...after, sides[0]!];
        for (const [name, measureSide] of order) {
          ctx.log(`  ${name}, repeat ${r + 1}/${repeats}`);
          add(name, await measureSide());
        }
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const fig = (side: SideName, k: keyof Memory) => median((figures.get(side) ?? []).map((m) => m[k]));
    const bare = fig('bare', 'rss_mb');
    const floor = 'bare node:http server, same run (MB)';
    ctx.log(`idle ${IDLE_MS} ms after ready, no forced GC; median of ${repeats} repeat(s), sides rotated`);
    for (const [side, label, target] of [
      ['serve first', '`noema serve`, first start (empty compile cache)', '; target ≤ 1.5'],
      ['serve second', '`noema serve`, second start (compile cache warm)', '; target ≤ 1.5'],
      ['worker', '`noema worker`, compile cache warm', ''],
    ] as const) {
      const rss = fig(side, 'rss_mb');
      ctx.row({
        case: label,
        metric: `idle RSS (ratio: ÷ the bare server's${target})`,
        unit: 'MB',
        value: rss,
        anchor: floor,
        anchor_value: bare,
        ratio: Math.round((rss / bare) * 1000) / 1000,
      });
      ctx.row({
        case: label,
        metric: 'anonymous memory: heap, own allocations (ratio: ÷ the bare server’s)',
        unit: 'MB',
        value: fig(side, 'anon_mb'),
        anchor: 'bare node:http server, same run (MB)',
        anchor_value: fig('bare', 'anon_mb'),
        ratio: Math.round((fig(side, 'anon_mb') / fig('bare', 'anon_mb')) * 1000) / 1000,
      });
    }
  },
} satisfies Bench;
