/**
 * The world bench's `get_world` rows (target p99 ≤ 5 ms at a random past turn of a 10 000-entity,
 * 1 000-turn world), measured outside the bench process, on the store it built:
 * - in a reader process of its own (`get-world-reader.ts`): both answer forms, warm and cold, wall
 *   and the reader's CPU time;
 * - end to end: `GET /worlds/:slug/turns/:n` on a fresh `noema serve`, from a client process of its
 *   own (`get-world-client.ts`), every request counted (the first reads the snapshot cold) — and,
 *   right after, the same requests from the same client to a bare `node:http` server answering a
 *   body of the same size (`get-world-floor-server.ts`): the floor, what moving the answer's bytes
 *   costs on this machine (its p99 alone moves between 3 and 9 ms here).
 * Both get the same random turns.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startCli } from '../../src/testing/cli.ts';
import { type BenchRow, summarize } from '../lib/harness.ts';

const READER = fileURLToPath(new URL('./get-world-reader.ts', import.meta.url));
const CLIENT = fileURLToPath(new URL('./get-world-client.ts', import.meta.url));
const FLOOR_SERVER = fileURLToPath(new URL('./get-world-floor-server.ts', import.meta.url));
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

/** The same client against the floor server answering `bytes`-byte bodies. */
async function floorOverHttp(bytes: number, turnsFile: string) {
  const server = spawn(process.execPath, [FLOOR_SERVER, String(bytes)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const base = await new Promise<string>((resolve, reject) => {
      let out = '';
      server.stdout.on('data', (d: Buffer) => {
        out += d;
        const m = /serving on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
        if (m) resolve(m[1]!);
      });
      server.on('exit', (code) => reject(new Error(`the floor server exited (${code}) before serving`)));
    });
    return child(CLIENT, [base, TOKEN, 'floor', turnsFile]) as { wall: number[]; bytes: number };
  } finally {
    server.kill('SIGTERM');
  }
}

/** p50 and p99 rows of `us`; the p99 against the target unless `floor` (a floor has none). */
function percentiles(label: string, metric: string, us: number[], floor = false): BenchRow[] {
  const s = summarize(us);
  return [
    { case: label, metric: `${metric} p50`, unit: 'ms', value: s.p50 / 1000 },
    { case: label, metric: `${metric} p99`, unit: 'ms', value: s.p99 / 1000, ...(floor ? {} : TARGET) },
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
    // The machine's load beside the figures: on a shared machine the p99 is mostly the load's.
    const rows: BenchRow[] = [
      {
        case: `load average (1 min) before the get_world reads [${kind}]`,
        metric: 'load',
        unit: '',
        value: loadavg()[0]!,
      },
    ];
    const world = `${entities} entities × ${headTurn} turns`;
    const forms = child(READER, [storeUrl, slug, turnsFile]) as Record<string, Samples>;
    for (const [name, samples] of Object.entries(forms)) {
      const [form, mode] = name.split(', ');
      const how =
        mode === 'cold' ? 'cold (snapshot read from the store)' : 'warm (snapshot and versions cached)';
      const floor = form!.endsWith(' floor');
      const label = !floor
        ? `get_world at a random past turn, ${world}, ${form}, ${how}, reader process [${kind}]`
        : form === 'JSON pieces floor'
          ? `the floor of cold JSON: the row of the turn's snapshot read by a cold read's statement (its text as UTF-8 bytes where the store can), nothing parsed, reader process [${kind}]`
          : mode === 'cold'
            ? `the floor of cold objects: a record of the ${entities} entities parsed from their JSON text (UTF-8 bytes) by one JSON.parse, nothing read, reader process [${kind}]`
            : `the floor of objects: a record of the ${entities} entities built from a Map of them, nothing read, reader process [${kind}]`;
      rows.push(
        ...percentiles(label, 'wall', samples.wall, floor),
        ...percentiles(label, 'cpu', samples.cpu ?? [], floor),
      );
    }
    // The target's rows: each cold answer's p99 (wall, and the reader's CPU) against 5 ms, its
    // floor's p99 beside it — for the JSON pieces and the spliced MCP answer (the stored text
    // spliced in) the snapshot's row read, for the MCP answer as objects (its structured content
    // is objects) the entities parsed by one JSON.parse.
    for (const [form, floorForm, what] of [
      ['JSON pieces', 'JSON pieces floor', "JSON pieces (HTTP's form)"],
      [
        'MCP answer spliced',
        'JSON pieces floor',
        "MCP get_world's answer (the stored text spliced in: stdio, HTTP's JSON answers)",
      ],
      [
        'MCP answer as objects',
        'objects floor',
        "MCP get_world's answer as objects (a dispatcher caller without a splice)",
      ],
    ] as const) {
      const read = forms[`${form}, cold`];
      const floor = forms[`${floorForm}, cold`];
      if (!read || !floor) continue;
      for (const clock of ['wall', 'cpu'] as const) {
        const p99 = summarize(read[clock] ?? []).p99 / 1000;
        const floorP99 = summarize(floor[clock] ?? []).p99 / 1000;
        rows.push({
          case: `cold get_world p99, ${what}, ${world}, reader process, ${clock} [${kind}]`,
          metric: `${clock} p99 (target ≤ 5 ms; ratio: ÷ the floor's p99)`,
          unit: 'ms',
          value: p99,
          anchor: `floor: ${floorForm === 'objects floor' ? 'one JSON.parse of the entities' : "the snapshot's row read"}, ${clock} p99`,
          anchor_value: floorP99,
          ratio: p99 / floorP99,
        });
      }
    }
    for (const [form, mode, floorForm] of [
      ['objects', 'warm', 'objects'],
      ['objects', 'cold', 'objects'],
      ['JSON pieces', 'cold', 'JSON pieces'],
      ['MCP answer spliced', 'cold', 'JSON pieces'],
      ['MCP answer as objects', 'cold', 'objects'],
    ] as const) {
      const read = forms[`${form}, ${mode}`];
      const floor = forms[`${floorForm} floor, ${mode}`];
      if (!read || !floor) continue;
      const [o, f] = [summarize(read.wall), summarize(floor.wall)];
      const [oc, fc] = [summarize(read.cpu ?? []), summarize(floor.cpu ?? [])];
      for (const q of ['p50', 'p99'] as const)
        rows.push(
          {
            case: `get_world ${form}, ${mode} ÷ the floor of ${mode} ${floorForm}, wall ${q} [${kind}]`,
            metric: 'ratio',
            unit: '×',
            value: o[q] / f[q],
          },
          {
            case: `get_world ${form}, ${mode} ÷ the floor of ${mode} ${floorForm}, cpu ${q} [${kind}]`,
            metric: 'ratio',
            unit: '×',
            value: oc[q] / fc[q],
          },
        );
    }
    const http = await overHttp(storeUrl, join(dir, 'serve'), slug, turnsFile);
    const label = `get_world at a random past turn, ${world}, GET /worlds/:slug/turns/:n on a fresh \`noema serve\`, all ${http.wall.length} requests (the first reads the snapshot cold) [${kind}]`;
    rows.push(
      ...percentiles(label, 'wall', http.wall),
      { case: label, metric: 'first request (cold)', unit: 'ms', value: http.wall[0]! / 1000 },
      { case: label, metric: 'answer size', unit: 'bytes', value: http.bytes },
    );
    const floor = await floorOverHttp(http.bytes, turnsFile);
    const f = summarize(floor.wall);
    const h = summarize(http.wall);
    const floorLabel = `the floor: the same ${floor.wall.length} requests from the same client to a bare node:http server answering a static body of the same size (${floor.bytes} bytes) [${kind}]`;
    rows.push(
      {
        case: `load average (1 min) after the get_world reads [${kind}]`,
        metric: 'load',
        unit: '',
        value: loadavg()[0]!,
      },
      { case: floorLabel, metric: 'wall p50', unit: 'ms', value: f.p50 / 1000 },
      { case: floorLabel, metric: 'wall p99', unit: 'ms', value: f.p99 / 1000 },
      {
        case: `GET /worlds/:slug/turns/:n ÷ the floor, p50 [${kind}]`,
        metric: 'ratio',
        unit: '×',
        value: h.p50 / f.p50,
      },
      {
        case: `GET /worlds/:slug/turns/:n ÷ the floor, p99 [${kind}]`,
        metric: 'ratio',
        unit: '×',
        value: h.p99 / f.p99,
      },
    );
    return rows;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
