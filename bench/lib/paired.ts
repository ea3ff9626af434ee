/**
 * Paired ratios for A/B benches on a shared machine: the median of per-round ratios (each round
 * runs both settings beside each other), with a bootstrap interval of that median and a verdict
 * against a target that says "not resolved" when the interval straddles it.
 */

import { seededRandom } from './random.ts';

export function median(xs: readonly number[]): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

export interface PairedRatio {
  /** Median of the per-round ratios. */
  p50: number;
  /** The bootstrap interval of that median (`level`, default 95 %). */
  low: number;
  high: number;
  rounds: number;
}

/** The median of `values` and its percentile-bootstrap interval. */
export function bootstrapMedian(
  values: readonly number[],
  { level = 0.95, resamples = 4000, seed = 1 } = {},
): PairedRatio {
  const n = values.length;
  const rand = seededRandom(seed);
  const medians = new Array<number>(resamples);
  const sample = new Array<number>(n);
  for (let r = 0; r < resamples; r++) {
    for (let i = 0; i < n; i++) sample[i] = values[Math.floor(rand() * n)]!;
    medians[r] = median(sample);
  }
  medians.sort((a, b) => a - b);
  const at = (q: number) => medians[Math.min(resamples - 1, Math.max(0, Math.floor(q * resamples)))]!;
  return { p50: median(values), low: at((1 - level) / 2), high: at(1 - (1 - level) / 2), rounds: n };
}

/** The median of `on[k] / off[k]` and its percentile-bootstrap interval. */
export function pairedRatio(
  on: readonly number[],
  off: readonly number[],
  options: { level?: number; resamples?: number; seed?: number } = {},
): PairedRatio {
  return bootstrapMedian(
    on.map((v, k) => v / off[k]!),
    options,
  );
}

/** Below this many rounds a bootstrap interval is little more than the range of the samples. */
const MIN_ROUNDS = 8;

/**
 * "meets" when the whole interval is at or under `target`, "misses" when all of it is over; never
 * either from fewer than MIN_ROUNDS rounds (a `--quick` run).
 */
export function verdict(r: PairedRatio, target: number): 'meets' | 'misses' | 'not resolved' {
  if (r.rounds < MIN_ROUNDS) return 'not resolved';
  if (r.high <= target) return 'meets';
  if (r.low > target) return 'misses';
  return 'not resolved';
}

export function formatRatio(r: PairedRatio): string {
  return `${r.p50.toFixed(3)} [${r.low.toFixed(3)}–${r.high.toFixed(3)}]`;
}

/**
 * Orders of `n` settings in which each setting follows every other one equally often (a Williams
 * design: `n` rows for an even `n`, `2n` for an odd one), so what a setting leaves behind — its
 * garbage, a thread's work still running — falls on every other setting alike. A plain rotation
 * does not: there a setting always follows the same one or two neighbours. Round `r` takes row
 * `r % rows.length`.
 */
export function balancedOrders(n: number): number[][] {
  const first: number[] = [];
  for (let k = 0, lo = 0, hi = n - 1; k < n; k++) first.push(k % 2 === 0 ? lo++ : hi--);
  const rows = Array.from({ length: n }, (_, r) => first.map((t) => (t + r) % n));
  return n % 2 === 0 ? rows : [...rows, ...rows.map((row) => [...row].reverse())];
}
