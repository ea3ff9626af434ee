/**
 * Runs the competitor anchors (bench/anchors, installed on first use) in child processes and returns
 * their figures, or the published figures labelled "reference (not measured here)" when an
 * anchor cannot be installed or loaded on this machine.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const benchDir = join(import.meta.dirname, '..');
export const anchorsDir = join(benchDir, 'anchors');

export interface AnchorFigures {
  name: string;
  measured: boolean;
  node?: string;
  /** µs per super-step p50 and flatness, per message size. */
  loop: Record<number, { p50: number; first50: number; last50: number; bytesPerStep: number } | undefined>;
  suspendUs?: number;
  coldResumeUs?: number;
  rssMb?: number;
  note?: string;
}

/** Installs bench/anchors once (`npm install --prefix bench/anchors`). Returns an error text on failure. */
export function ensureAnchorsInstalled(log: (s: string) => void): string | null {
  if (existsSync(join(anchorsDir, 'node_modules', '@langchain', 'langgraph'))) return null;
  log('installing benchmark anchors into bench/anchors (first run only)…');
  const r = spawnSync('npm', ['install', '--prefix', anchorsDir, '--no-audit', '--no-fund'], {
    encoding: 'utf8',
    timeout: 600_000,
  });
  return r.status === 0
    ? null
    : `npm install --prefix bench/anchors failed: ${(r.stderr || r.stdout).slice(-400)}`;
}

function runScript(
  node: string,
  script: string,
  args: string[],
  extra: string[] = [],
): { ok: boolean; json?: unknown; error?: string } {
  const code = readFileSync(join(import.meta.dirname, script), 'utf8');
  const r = spawnSync(node, [...extra, '--input-type=module', '-e', code, ...args], {
    cwd: anchorsDir,
    encoding: 'utf8',
    timeout: 600_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  const line = r.stdout.trim().split('\n').at(-1) ?? '';
  if (r.status === 0 && line.startsWith('{')) return { ok: true, json: JSON.parse(line) };
  return { ok: false, error: (r.stderr || r.stdout || `exit ${r.status}`).slice(-600) };
}

/** The Node binaries to try: ours first, then the system Node (better-sqlite3 may be built only for it). */
function candidates(): string[] {
  return [process.execPath, '/usr/bin/node'].filter((p, i, a) => existsSync(p) && a.indexOf(p) === i);
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? 0;
}

export function measureAnchor(
  name: string,
  script: string,
  sizes: number[],
  steps: number,
  iterations: number,
  log: (s: string) => void,
): AnchorFigures | string {
  let node: string | undefined;
  let lastError = '';
  for (const candidate of candidates()) {
    const probe = runScript(candidate, script, ['probe']);
    if (probe.ok) {
      node = candidate;
      break;
    }
    lastError = probe.error ?? '';
  }
  if (!node) return `${name} could not be loaded by any Node here: ${lastError}`;
  const rss = runScript(node, script, ['rss'], ['--expose-gc']);
  const figures: AnchorFigures = {
    name,
    measured: true,
    loop: {},
    rssMb: (rss.json as { rss_mb: number }).rss_mb,
  };
  for (const size of sizes) {
    log(`  ${name}: loop ${size} B × ${steps} steps…`);
    const r = runScript(node, script, ['run', String(size), String(steps), String(iterations)]);
    if (!r.ok) return `${name} failed at ${size} B: ${r.error}`;
    const j = r.json as {
      node: string;
      stepUs: number[];
      bytesPerStep: number;
      suspendUs: number[];
      coldResumeUs: number[];
    };
    figures.node = j.node;
    figures.loop[size] = {
      p50: median(j.stepUs),
      first50: median(j.stepUs.slice(0, 50)),
      last50: median(j.stepUs.slice(-50)),
      bytesPerStep: j.bytesPerStep,
    };
    if (size === sizes[0]) {
      figures.suspendUs = median(j.suspendUs);
      figures.coldResumeUs = median(j.coldResumeUs);
    }
  }
  return figures;
}

/** The figures for an anchor that could not run here (clearly labelled as such). */
export function referenceFigures(name: string, note: string): AnchorFigures {
  const lg = name.startsWith('LangGraph');
  return {
    name: `${name} — reference (not measured here)`,
    measured: false,
    loop: {
      32: { p50: lg ? 588 : 308 / 2, first50: Number.NaN, last50: Number.NaN, bytesPerStep: Number.NaN },
      1024: {
        p50: lg ? 1304 : 838 / 2,
        first50: Number.NaN,
        last50: Number.NaN,
        bytesPerStep: lg ? 21_000_000 / 200 : Number.NaN,
      },
    },
    suspendUs: lg ? 2300 : 1100,
    coldResumeUs: lg ? 3600 : 9500,
    rssMb: lg ? 79 : 145,
    note,
  };
}
