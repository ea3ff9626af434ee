/**
 * The engine benchmark: the reason → tool → reason loop for 200 super-steps, each appending one
 * message (32 B and 1 KB), on durable SQLite — Noema vs LangGraph.js (SQLite checkpointer) vs Mastra
 * (LibSQL), plus the raw SQLite commit floor, all in one run. Also suspend, cold resume and idle RSS.
 * Anchors run in child processes from bench/anchors (installed on first run).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AnchorFigures,
  ensureAnchorsInstalled,
  measureAnchor,
  referenceFigures,
} from './engine/anchors.ts';
import { noemaLoop, noemaSuspendResume, rawCommitFloor } from './engine/noema-cases.ts';
import { type Bench, type BenchContext, summarize } from './lib/harness.ts';

const SIZES = [32, 1024];

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? 0;
}

/** Median over runs of each run's p50, p99 and first/last-50 p50. */
function loopSummary(runs: number[][]): { p50: number; p99: number; first50: number; last50: number } {
  return {
    p50: median(runs.map((r) => summarize(r).p50)),
    p99: median(runs.map((r) => summarize(r).p99)),
    first50: median(runs.map((r) => summarize(r.slice(0, 50)).p50)),
    last50: median(runs.map((r) => summarize(r.slice(-50)).p50)),
  };
}

function noemaRss(cacheDir: string | null, withPg = false): number {
  const r = spawnSync(
    process.execPath,
    ['--expose-gc', join(import.meta.dirname, 'engine', 'noema-rss.ts'), ...(withPg ? ['--with-pg'] : [])],
    {
      encoding: 'utf8',
      env: { ...process.env, ...(cacheDir ? { NODE_COMPILE_CACHE: cacheDir } : {}) },
    },
  );
  return (JSON.parse(r.stdout.trim().split('\n').at(-1)!) as { rss_mb: number }).rss_mb;
}

function compare(
  ctx: BenchContext,
  c: string,
  metric: string,
  unit: string,
  value: number,
  anchors: AnchorFigures[],
  pick: (a: AnchorFigures) => number | undefined,
  lowerIsBetter = true,
): void {
  ctx.row({ case: c, metric, unit, value });
  for (const a of anchors) {
    const v = pick(a);
    if (v === undefined || Number.isNaN(v)) continue;
    const ratio = lowerIsBetter ? v / value : value / v;
    ctx.row({
      case: c,
      metric,
      unit,
      value,
      anchor: a.name,
      anchor_value: v,
      ratio: Math.round(ratio * 1000) / 1000,
    });
  }
}

export default {
  name: 'engine',
  description:
    'durable super-steps, storage per step, suspend/cold resume, idle RSS: Noema vs LangGraph.js vs Mastra vs the raw SQLite commit floor',
  async run(ctx) {
    const steps = 200;
    const iterations = ctx.quick ? 30 : 100;
    const anchors: AnchorFigures[] = [];
    const installError = ensureAnchorsInstalled(ctx.log);
    for (const [name, script] of [
      ['LangGraph.js 1.7 + SqliteSaver', 'anchor-langgraph.mjs'],
      ['Mastra 1.71 + LibSQLStore', 'anchor-mastra.mjs'],
    ] as const) {
      const figures = installError
        ? installError
        : measureAnchor(name, script, SIZES, steps, ctx.quick ? 20 : 50, ctx.log);
      if (typeof figures === 'string') {
        ctx.log(`anchor ${name}: ${figures}`);
        anchors.push(referenceFigures(name, figures));
      } else {
        ctx.log(`anchor ${name}: measured under Node ${figures.node}`);
        anchors.push(figures);
      }
    }

    for (const size of SIZES) {
      ctx.log(`Noema loop ${size} B…`);
      // The machine is shared: each side runs `repeats` times and reports the median of the runs' figures.
      const repeats = ctx.quick ? 1 : 5;
      const runs = [];
      const floors = [];
      for (let i = 0; i < repeats; i++) {
        runs.push(await noemaLoop(size, steps));
        floors.push(await rawCommitFloor(size, steps));
      }
      // Storage is read at page granularity (4 KiB); a longer run gives a precise per-step figure.
      const long = await noemaLoop(size, 1000);
      const longFloor = await rawCommitFloor(size, 1000);
      const noema = loopSummary(runs.map((r) => r.steps));
      const floorFig: AnchorFigures = {
        name: 'raw SQLite commit floor (node:sqlite, WAL, synchronous=NORMAL, 1 INSERT + COMMIT)',
        measured: true,
        loop: {
          [size]: { ...loopSummary(floors.map((r) => r.steps)), bytesPerStep: longFloor.bytesPerStep },
        },
      };
      const others = [...anchors, floorFig];
      const c = `loop ${size} B × ${steps} steps`;
      compare(ctx, c, 'step p50', 'µs', noema.p50, others, (a) => a.loop[size]?.p50);
      ctx.row({ case: c, metric: 'step p99', unit: 'µs', value: noema.p99 });
      compare(ctx, c, 'first 50 steps p50', 'µs', noema.first50, others, (a) => a.loop[size]?.first50);
      compare(ctx, c, 'last 50 steps p50', 'µs', noema.last50, others, (a) => a.loop[size]?.last50);
      compare(
        ctx,
        c,
        'bytes stored per step',
        'bytes',
        long.bytesPerStep,
        others,
        (a) => a.loop[size]?.bytesPerStep,
      );
      ctx.row({
        case: c,
        metric: 'bytes stored per step ÷ message (delta) size',
        unit: '×',
        value: long.bytesPerStep / size,
      });
      ctx.row({
        case: c,
        metric: 'bytes stored per step ÷ delta, 200-step run (page-granular)',
        unit: '×',
        value: runs[0]!.bytesPerStep / size,
      });
    }

    try {
      const pg = await noemaLoop(32, steps, 'postgres');
      ctx.row({
        case: `loop 32 B × ${steps} steps on PostgreSQL (reference)`,
        metric: 'step p50',
        unit: 'µs',
        value: summarize(pg.steps).p50,
      });
    } catch (err) {
      ctx.log(`PostgreSQL loop skipped: ${(err as Error).message}`);
    }

    ctx.log('Noema suspend / cold resume…');
    const sr = await noemaSuspendResume(iterations);
    const floor32: AnchorFigures = {
      name: 'raw SQLite commit floor',
      measured: true,
      loop: {
        32: {
          p50: summarize((await rawCommitFloor(32, 200)).steps).p50,
          first50: 0,
          last50: 0,
          bytesPerStep: 0,
        },
      },
    };
    compare(
      ctx,
      'suspend (start → WAITING persisted)',
      'p50',
      'µs',
      summarize(sr.suspendUs).p50,
      [...anchors, { ...floor32, suspendUs: floor32.loop[32]!.p50 }],
      (a) => a.suspendUs,
    );
    compare(
      ctx,
      'cold resume (fresh store handle → next WAITING/terminal)',
      'p50',
      'µs',
      summarize(sr.coldResumeUs).p50,
      [...anchors, { ...floor32, coldResumeUs: floor32.loop[32]!.p50 }],
      (a) => a.coldResumeUs,
    );
    ctx.row({
      case: 'cold resume (fresh store handle → next WAITING/terminal)',
      metric: 'of which: opening the store handle + engine',
      unit: 'µs',
      value: summarize(sr.openUs).p50,
    });
    ctx.row({
      case: 'cold resume (fresh store handle → next WAITING/terminal)',
      metric: 'p50 when opened as the CLI does (openStore + migration check)',
      unit: 'µs',
      value: summarize(sr.viaOpenStoreUs).p50,
    });

    const cache = mkdtempSync(join(tmpdir(), 'noema-ccache-'));
    const cold = noemaRss(null);
    noemaRss(cache);
    const warm = noemaRss(cache);
    compare(
      ctx,
      'idle RSS after imports (engine + SQLite store open)',
      'first start (TypeScript stripped at load)',
      'MB',
      cold,
      anchors,
      (a) => a.rssMb,
    );
    compare(
      ctx,
      'idle RSS after imports (engine + SQLite store open)',
      'with NODE_COMPILE_CACHE warm',
      'MB',
      warm,
      anchors,
      (a) => a.rssMb,
    );
    noemaRss(cache, true);
    const pgToo = noemaRss(cache, true);
    compare(
      ctx,
      'idle RSS after imports (engine + SQLite store open)',
      'compile cache warm, pg driver also imported',
      'MB',
      pgToo,
      anchors,
      (a) => a.rssMb,
    );
    for (const a of anchors) if (!a.measured) ctx.log(`note: ${a.name}: ${a.note}`);
  },
} satisfies Bench;
