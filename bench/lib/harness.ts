/**
 * The benchmark harness: timing helpers, a results table, and `bench/results/<name>.json`
 * in the shape `{ name, started_at, node, rows: [{ case, metric, unit, value, anchor?, anchor_value?, ratio? }] }`.
 * For times, `ratio` is anchor ÷ Noema (above 1 means Noema is faster).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface BenchRow {
  case: string;
  metric: string;
  unit: string;
  value: number;
  anchor?: string;
  anchor_value?: number;
  ratio?: number;
}

export interface BenchResult {
  name: string;
  started_at: string;
  node: string;
  rows: BenchRow[];
}

export interface BenchContext {
  /** True for `npm run bench -- --quick`: fewer iterations, for smoke runs. */
  quick: boolean;
  /** Adds a row; when `anchor_value` is given for a time, `ratio` is computed as anchor ÷ value. */
  row(row: Omit<BenchRow, 'ratio'> & { ratio?: number }): void;
  log(line: string): void;
}

export interface Bench {
  name: string;
  description: string;
  run(ctx: BenchContext): Promise<void>;
}

/** Per-operation latency samples in microseconds. */
export interface Samples {
  p50: number;
  p99: number;
  mean: number;
  count: number;
}

export function summarize(samplesUs: number[]): Samples {
  const s = [...samplesUs].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? 0;
  return { p50: at(0.5), p99: at(0.99), mean: s.reduce((a, b) => a + b, 0) / (s.length || 1), count: s.length };
}

/** Times `op` `iterations` times (after `warmup` untimed runs); returns per-call microseconds. */
export async function measure(iterations: number, op: (i: number) => unknown, warmup = Math.min(50, iterations)): Promise<Samples> {
  for (let i = 0; i < warmup; i++) await op(i);
  const out = new Array<number>(iterations);
  for (let i = 0; i < iterations; i++) {
    const t0 = process.hrtime.bigint();
    await op(i);
    out[i] = Number(process.hrtime.bigint() - t0) / 1000;
  }
  return summarize(out);
}

export function timeRatio(anchorValue: number, value: number): number {
  return value > 0 ? Math.round((anchorValue / value) * 1000) / 1000 : 0;
}

export function createContext(quick: boolean, rows: BenchRow[]): BenchContext {
  return {
    quick,
    row(r) {
      const full: BenchRow = { ...r, value: round(r.value) };
      if (r.anchor_value !== undefined) full.anchor_value = round(r.anchor_value);
      if (r.ratio === undefined && r.anchor_value !== undefined && r.unit !== 'bytes') {
        full.ratio = timeRatio(r.anchor_value, r.value);
      }
      rows.push(full);
    },
    log: (line) => console.log(line),
  };
}

function round(v: number): number {
  return Math.round(v * 1000) / 1000;
}

export function printTable(result: BenchResult): void {
  const header = ['case', 'metric', 'value', 'unit', 'anchor', 'anchor value', 'ratio'];
  const body = result.rows.map((r) => [
    r.case,
    r.metric,
    String(r.value),
    r.unit,
    r.anchor ?? '',
    r.anchor_value === undefined ? '' : String(r.anchor_value),
    r.ratio === undefined ? '' : `${r.ratio}×`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ');
  console.log(`\n${result.name}`);
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const b of body) console.log(line(b));
}

export function writeResult(dir: string, result: BenchResult): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${result.name}.json`);
  writeFileSync(path, `${JSON.stringify(result, null, 2)}\n`);
  return path;
}
