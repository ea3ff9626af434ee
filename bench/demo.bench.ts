/**
 * `noema demo` (issue 13 targets), on the embedded store:
 * - time from starting `noema demo --no-serve` on a fresh store to its summary (target ≤ 15 s), vs
 *   the floor of starting the CLI at all (`noema --version`) in the same run;
 * - after `noema demo --turns 100`, the server's world page, an older page of its turn timeline, the
 *   attempt (with its waterfall) and run (waterfall) pages as HTML: bytes (target ≤ 500 KB each) and time to first byte
 *   (target ≤ 200 ms, median of 20), vs the same server's `/healthz` as the floor.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NOEMA_BIN } from '../src/testing/cli.ts';
import { type Bench, summarize } from './lib/harness.ts';

const TOKEN = 'bench-demo-token-0123456789';
const NOEMA_VARS = /^NOEMA_(DB|PORT|TOKEN|DATA_DIR|LLM_.*|TOY_.*|MCP_.*)$/;

function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!NOEMA_VARS.test(k)) out[k] = v;
  return { ...out, ...extra };
}

/** Starts `noema <args>` in `cwd`; resolves with the seconds until `pattern` first appears on stdout. */
function timeUntil(cwd: string, args: string[], pattern: RegExp, extra: Record<string, string> = {}) {
  const t0 = performance.now();
  const child = spawn(process.execPath, [NOEMA_BIN, ...args], { cwd, env: env(extra) });
  let out = '';
  let err = '';
  const seen = new Promise<{ seconds: number; match: RegExpMatchArray }>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`noema ${args.join(' ')}: no ${pattern} in 15 min`)),
      900_000,
    );
    child.stdout.on('data', (d) => {
      out += d;
      const m = out.match(pattern);
      if (m) {
        clearTimeout(timer);
        resolve({ seconds: (performance.now() - t0) / 1000, match: m });
      }
    });
    child.stderr.on('data', (d) => {
      err += d;
    });
    child.on('exit', (code) => {
      if (!pattern.test(out)) {
        clearTimeout(timer);
        reject(new Error(`noema ${args.join(' ')} exited ${code}: ${err || out}`));
      }
    });
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  return { seen, exited, kill: (s: NodeJS.Signals) => child.kill(s), stdout: () => out };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function fetchTimed(url: string): Promise<{ ttfbMs: number; bytes: number; status: number }> {
  const t0 = performance.now();
  const res = await fetch(url, { headers: { authorization: `Bearer ${TOKEN}`, accept: 'text/html' } });
  const ttfbMs = performance.now() - t0; // fetch resolves when the status line and headers arrive
  const bytes = (await res.arrayBuffer()).byteLength;
  return { ttfbMs, bytes, status: res.status };
}

const bench: Bench = {
  name: 'demo',
  description: 'noema demo: time to summary on a fresh store; page weight and first byte at 100 turns',
  async run(ctx) {
    const dirs: string[] = [];
    const fresh = () => {
      const d = mkdtempSync(join(tmpdir(), 'noema-bench-demo-'));
      dirs.push(d);
      return d;
    };
    try {
      const rounds = ctx.quick ? 1 : 3;
      const demo: number[] = [];
      const floor: number[] = [];
      for (let i = 0; i < rounds; i++) {
        floor.push((await timeUntil(fresh(), ['--version'], /noema \d/).seen).seconds);
        const run = timeUntil(fresh(), ['demo', '--no-serve'], /Where to look/);
        demo.push((await run.seen).seconds);
        await run.exited;
      }
      ctx.row({
        case: 'noema demo --no-serve, fresh store, 5 turns (target ≤ 15 s)',
        metric: `start to summary, median of ${rounds}`,
        unit: 's',
        value: median(demo),
        anchor: 'noema --version (CLI start floor)',
        anchor_value: median(floor),
      });

      const turns = ctx.quick ? 20 : 100;
      const dir = fresh();
      const build = timeUntil(dir, ['demo', '--no-serve', '--turns', String(turns)], /Where to look/);
      const built = await build.seen;
      await build.exited;
      ctx.log(`demo with ${turns} turns: ${built.seconds.toFixed(1)} s to its summary`);
      const server = timeUntil(dir, ['serve', '--port', '0'], /serving on (http:\/\/127\.0\.0\.1:\d+)/, {
        NOEMA_DB: join(dir, '.noema', 'demo.db'),
        NOEMA_TOKEN: TOKEN,
      });
      try {
        const base = (await server.seen).match[1]!;
        const auth = { headers: { authorization: `Bearer ${TOKEN}` } };
        // Turn 1 is the busiest attempt (two tool calls, three patches); the newest is a quiet one.
        const attempts = (await (
          await fetch(`${base}/attempts?world_slug=park-demo&limit=100&format=json`, auth)
        ).json()) as { items: Array<{ attempt_id: string; attempted_turn?: number }> };
        const first =
          attempts.items.find((a) => a.attempted_turn === 1) ?? attempts.items[attempts.items.length - 1]!;
        const attemptId = first.attempt_id;
        const attempt = (await (await fetch(`${base}/attempts/${attemptId}?format=json`, auth)).json()) as {
          run_id?: string;
          attempted_turn?: number;
        };
        const pages: Array<[string, string]> = [
          ['world page', '/worlds/park-demo'],
          [
            'world page, an older page of the turn timeline',
            `/worlds/park-demo?before=${Math.max(1, turns - 49)}`,
          ],
          [`attempt page (turn ${attempt.attempted_turn ?? '?'}, waterfall)`, `/attempts/${attemptId}`],
        ];
        if (attempt.run_id) pages.push(['run page (waterfall)', `/runs/${attempt.run_id}`]);
        const samples = ctx.quick ? 5 : 20;
        for (let i = 0; i < 5; i++) await fetchTimed(`${base}/healthz`); // warm-up, as each page's probe
        const floorTtfb: number[] = [];
        for (let i = 0; i < samples; i++) floorTtfb.push((await fetchTimed(`${base}/healthz`)).ttfbMs);
        for (const [name, path] of pages) {
          const probe = await fetchTimed(`${base}${path}`);
          // The browser pages land separately; a page this build does not serve yet is skipped, said so.
          if (probe.status === 404 || probe.status === 405) {
            ctx.log(`${name}: GET ${path} is not served by this build (HTTP ${probe.status}); skipped`);
            continue;
          }
          const ttfb: number[] = [];
          let bytes = 0;
          for (let i = 0; i < samples; i++) {
            const r = await fetchTimed(`${base}${path}`);
            if (r.status !== 200) throw new Error(`${path}: HTTP ${r.status}`);
            ttfb.push(r.ttfbMs);
            bytes = r.bytes;
          }
          ctx.row({
            case: `${name} at ${turns} turns (target ≤ 500 KB)`,
            metric: 'HTML size',
            unit: 'KB',
            value: bytes / 1024,
            anchor: 'target',
            anchor_value: 500,
            ratio: Math.round((500 / (bytes / 1024)) * 1000) / 1000,
          });
          ctx.row({
            case: `${name} at ${turns} turns (target ≤ 200 ms)`,
            metric: `time to first byte, p50 of ${samples} (p99 ${summarize(ttfb).p99.toFixed(1)} ms)`,
            unit: 'ms',
            value: median(ttfb),
            anchor: 'GET /healthz on the same server',
            anchor_value: median(floorTtfb),
          });
        }
      } finally {
        server.kill('SIGTERM');
        await server.exited;
      }
    } finally {
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    }
  },
};

export default bench;
