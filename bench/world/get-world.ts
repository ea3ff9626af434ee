/**
 * The world bench's `get_world` rows (target p99 ≤ 5 ms at a random past turn of a 10 000-entity,
 * 1 000-turn world), measured outside the bench process, on the store it built:
 * - in a reader process of its own (`get-world-reader.ts`): both answer forms, warm and cold, wall
 *   and the reader's CPU time;
 * - end to end: `GET /worlds/:slug/turns/:n` on a fresh `noema serve`, from a client process of its
 *   own (`get-world-client.ts`), every request counted (the first reads the snapshot cold).
 * Both get the same random turns.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startCli } from '../../src/testing/cli.ts';
import { type BenchRow, summarize } from '../lib/harness.ts';

const READER = fileURLToPath(new URL('./get-world-reader.ts', import.meta.url));
const CLIENT = fileURLToPath(new URL('./get-world-client.ts', import.meta.url));
const TOKEN = 'bench-token-0123456789abcdef-get-world';
const TARGET = { anchor: 'target', anchor_value: 5 } as const;

type Samples = { wall: number[]; cpu?: number[] };

/** Runs `script` (a process of its own) to its end and parses the JSON line it prints. */
function child(script: string, args: string[]): unknown {
  const out = execFileSync(process.execPath, [script, ...args], { encoding: 'utf8', maxBuffer: 64 << 20 });
  return JSON.parse(out.trim().split('\n').at(-1)!);
}

async function overHttp(storeUrl: string, dir: string, slug: string, turnsFile: string) {
  const server = startCli(['serve', '--port', '0'], {
    NOEMA_DB: storeUrl,
    NOEMA_DATA_DIR: dir,
    NOEMA_TOKEN: TOKEN,
  });
  try {
    const [, base] = await server.waitFor(/serving on (http:\/\/127\.0\.0\.1:\d+)/);
    return child(CLIENT, [base!, TOKEN, slug, turnsFile]) as { wall: number[]; bytes: number };
  } finally {
    server.child.kill('SIGTERM');
    await server.exited;
  }
}

function percentiles(label: string, metric: string, us: number[]): BenchRow[] {
  const s = summarize(us);
  return [
    { case: label, metric: `${metric} p50`, unit: 'ms', value: s.p50 / 1000 },
    { case: label, metric: `${metric} p99`, unit: 'ms', value: s.p99 / 1000, ...TARGET },
  ];
}

/** The rows for world `slug` (at `headTurn`, of `entities`) in store `storeUrl`, `n` timed reads each. */
export async function getWorldRows(
  storeUrl: string,
  slug: string,
  headTurn: number,
  entities: number,
  n: number,
  kind: string,
): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'noema-bench-get-world-'));
  try {
    // The reader leaves its first 10 calls of each loop untimed; the HTTP client counts all.
    const turns = Array.from({ length: n + 10 }, () => Math.floor(Math.random() * headTurn));
    const turnsFile = join(dir, 'turns.json');
    writeFileSync(turnsFile, JSON.stringify(turns));
    const rows: BenchRow[] = [];
    const world = `${entities} entities × ${headTurn} turns`;
    const forms = child(READER, [storeUrl, slug, turnsFile]) as Record<string, Samples>;
    for (const [name, samples] of Object.entries(forms)) {
      const [form, mode] = name.split(', ');
      const how =
        mode === 'cold' ? 'cold (snapshot read from the store)' : 'warm (snapshot and versions cached)';
      const label = `get_world at a random past turn, ${world}, ${form}, ${how}, reader process [${kind}]`;
      rows.push(...percentiles(label, 'wall', samples.wall), ...percentiles(label, 'cpu', samples.cpu ?? []));
    }
    const http = await overHttp(storeUrl, join(dir, 'serve'), slug, turnsFile);
    const label = `get_world at a random past turn, ${world}, GET /worlds/:slug/turns/:n on a fresh \`noema serve\`, all ${http.wall.length} requests (the first reads the snapshot cold) [${kind}]`;
    rows.push(
      ...percentiles(label, 'wall', http.wall),
      { case: label, metric: 'first request (cold)', unit: 'ms', value: http.wall[0]! / 1000 },
      { case: label, metric: 'answer size', unit: 'bytes', value: http.bytes },
    );
    return rows;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
