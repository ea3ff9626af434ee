/**
 * The sides of the engine benchmark, each run as a fresh child process per repeat: Noema, the raw
 * SQLite commit floor, and the competitor anchors (bench/anchors, installed by `npm run bench:anchors`,
 * never by a bench run). An anchor that is not installed or cannot be loaded is reported as missing,
 * with the reason; no figure replaces it.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const benchDir = join(import.meta.dirname, '..');
export const anchorsDir = join(benchDir, 'anchors');

/** What one side's child process reports for one measured run. */
export interface SideRun {
  node: string;
  /** Microseconds between consecutive super-steps of the measured run, in order. */
  stepUs: number[];
  /** Database growth per step over the measured run, after a full WAL checkpoint. */
  bytesPerStep: number;
  /** Bytes passed to write syscalls per step over the measured run, checkpoint included. */
  writtenPerStep: number;
  /** Process CPU µs per step (all threads) over the measured run and its final checkpoint; Noema and the floor only. */
  cpuPerStepUs?: number;
  suspendUs?: number[];
  coldResumeUs?: number[];
}

export interface Side {
  name: string;
  /** Why this side cannot run here; set instead of any figure. */
  missing?: string;
  /**
   * Runs one fresh process: `size` bytes per message, `steps` measured steps, `iterations`
   * suspend/resume pairs; a warm-up run of `warmup` steps first (20 when not given; only Noema and
   * the floor take another).
   */
  run(size: number, steps: number, iterations: number, warmup?: number): SideRun;
  /** Idle RSS after imports, MB (first start, no compile cache). */
  rssMb?(): number;
}

/** What a row says when the anchors are not installed: the bench never installs them itself. */
export const ANCHORS_NOT_INSTALLED = 'not measured — run npm run bench:anchors';

/**
 * Null when bench/anchors holds the competitor packages (`npm run bench:anchors` installs them),
 * otherwise why they cannot run. Never installs anything: a bench run does not stall on npm.
 */
export function anchorsMissing(): string | null {
  for (const pkg of ['@langchain/langgraph', '@langchain/langgraph-checkpoint-sqlite', '@mastra/memory'])
    if (!existsSync(join(anchorsDir, 'node_modules', ...pkg.split('/')))) return ANCHORS_NOT_INSTALLED;
  return null;
}

function lastJson(
  r: ReturnType<typeof spawnSync>,
): { ok: true; json: unknown } | { ok: false; error: string } {
  const stdout = String(r.stdout ?? '');
  const line = stdout.trim().split('\n').at(-1) ?? '';
  if (r.status === 0 && line.startsWith('{')) return { ok: true, json: JSON.parse(line) };
  return { ok: false, error: (String(r.stderr ?? '') || stdout || `exit ${r.status}`).slice(-600) };
}

function runAnchorScript(node: string, script: string, args: string[], extra: string[] = []) {
  const code = readFileSync(join(import.meta.dirname, script), 'utf8');
  return lastJson(
    spawnSync(node, [...extra, '--input-type=module', '-e', code, ...args], {
      cwd: anchorsDir,
      encoding: 'utf8',
      timeout: 600_000,
      maxBuffer: 64 * 1024 * 1024,
    }),
  );
}

/** The Node binaries to try: ours first, then the system Node (better-sqlite3 may be built only for it). */
function candidates(): string[] {
  return [process.execPath, '/usr/bin/node'].filter((p, i, a) => existsSync(p) && a.indexOf(p) === i);
}

/** A competitor anchor, or a side that says why it is missing. */
export function anchorSide(name: string, script: string, installError: string | null): Side {
  const missing = (why: string): Side => ({
    name,
    missing: why,
    run: () => {
      throw new Error(why);
    },
  });
  if (installError) return missing(installError);
  let node: string | undefined;
  let lastError = '';
  for (const candidate of candidates()) {
    const probe = runAnchorScript(candidate, script, ['probe']);
    if (probe.ok) {
      node = candidate;
      break;
    }
    lastError = probe.error;
  }
  if (!node) return missing(`could not be loaded by any Node here: ${lastError}`);
  const n = node;
  return {
    name,
    run(size, steps, iterations) {
      const r = runAnchorScript(n, script, ['run', String(size), String(steps), String(iterations)]);
      if (!r.ok) throw new Error(`${name} failed at ${size} B: ${r.error}`);
      return r.json as SideRun;
    },
    rssMb() {
      const r = runAnchorScript(n, script, ['rss'], ['--expose-gc']);
      if (!r.ok) throw new Error(`${name} rss failed: ${r.error}`);
      return (r.json as { rss_mb: number }).rss_mb;
    },
  };
}

function runNoemaScript(args: string[]) {
  return lastJson(
    spawnSync(process.execPath, [join(import.meta.dirname, 'noema-side.ts'), ...args], {
      encoding: 'utf8',
      timeout: 600_000,
      maxBuffer: 64 * 1024 * 1024,
      // No compile cache, as the anchors (plain JavaScript) have none either.
      env: { ...process.env, NODE_COMPILE_CACHE: '' },
    }),
  );
}

export const noemaSide: Side = {
  name: 'Noema (node:sqlite, WAL, synchronous=NORMAL)',
  run(size, steps, iterations, warmup = 20) {
    const r = runNoemaScript(['run', String(size), String(steps), String(iterations), String(warmup)]);
    if (!r.ok) throw new Error(`Noema failed at ${size} B: ${r.error}`);
    return r.json as SideRun;
  },
};

export const floorSide: Side = {
  name: 'raw SQLite commit floor (node:sqlite, WAL, synchronous=NORMAL, 1 INSERT + COMMIT)',
  run(size, steps, _iterations, warmup = 20) {
    const r = runNoemaScript(['floor', String(size), String(steps), String(warmup)]);
    if (!r.ok) throw new Error(`floor failed at ${size} B: ${r.error}`);
    return r.json as SideRun;
  },
};
