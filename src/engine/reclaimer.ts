/**
 * The run reclaimer of a long-running process (a server, a worker): every interval, each engine the
 * process holds claims the runs other processes left behind — `running` under an expired lease (the
 * process died), or `queued` too long — and executes them with `claimNext`, so through the runtimes'
 * drivers (`driveClaimed`), at most `concurrency` at a time.
 */
import type { ClaimOptions, RunOutcome } from './engine.ts';

/** What the reclaimer claims from: an Engine, or a runtime's lazy stand-in for one. */
export interface RunClaimer {
  claimNext(options?: ClaimOptions): Promise<RunOutcome | null>;
}

export interface RunReclaimerOptions {
  /** Time between passes, in ms. */
  intervalMs: number;
  /** Runs executed at once, over every claimer (default 4). */
  concurrency?: number;
  /** Passed to `claimNext` (see ClaimOptions.queuedForMs). */
  queuedForMs?: number;
  /** A claim or a claimed run failed; the run stays claimable and a later pass tries again. */
  onError?: (err: unknown) => void;
  /** A claimed run stopped in this process. */
  onOutcome?: (outcome: RunOutcome) => void;
}

export interface RunReclaimer {
  /** Starts a pass now; resolves when the claims it started are done (for tests and startup). */
  pass(): Promise<void>;
  /** Stops claiming. Runs in flight go on until the engine closes; their errors are not reported. */
  stop(): void;
  /** Claiming loops under way now (each claiming or executing one run). */
  inFlight(): number;
  /** Resolves once no claiming loop is under way (after `stop`, once the runs in flight stopped here). */
  settled(): Promise<void>;
}

/**
 * Each pass starts, for each claimer, one claiming loop if it has none or if its loops found work
 * last time (a backlog opens one more loop per pass, up to `concurrency`); a loop executes claimed
 * runs one after another and ends when there is none. An idle pass costs one claim query a claimer.
 */
export function startRunReclaimer(
  claimers: readonly RunClaimer[],
  options: RunReclaimerOptions,
): RunReclaimer {
  const concurrency = Math.max(1, options.concurrency ?? 4);
  const claim: ClaimOptions = options.queuedForMs === undefined ? {} : { queuedForMs: options.queuedForMs };
  const loops = claimers.map(() => 0);
  const busy = claimers.map(() => false);
  let total = 0;
  let stopped = false;
  let waiters: Array<() => void> = [];

  async function loop(i: number): Promise<void> {
    loops[i]!++;
    total++;
    try {
      while (!stopped) {
        const outcome = await claimers[i]!.claimNext(claim);
        if (outcome === null) {
          busy[i] = false;
          return;
        }
        busy[i] = true;
        if (!stopped) options.onOutcome?.(outcome);
      }
    } catch (err) {
      busy[i] = false;
      if (!stopped) options.onError?.(err);
    } finally {
      loops[i]!--;
      total--;
      if (total === 0) {
        const done = waiters;
        waiters = [];
        for (const w of done) w();
      }
    }
  }

  function pass(): Promise<void> {
    const started: Promise<void>[] = [];
    for (let i = 0; i < claimers.length && !stopped; i++) {
      if (total >= concurrency) break;
      if (loops[i] === 0 || busy[i]) started.push(loop(i));
    }
    return Promise.all(started).then(() => undefined);
  }

  const timer = setInterval(() => void pass(), options.intervalMs);
  timer.unref();
  // The first pass at once: a restarted process finishes what its previous life left behind.
  setImmediate(() => void pass());
  return {
    pass,
    stop() {
      stopped = true;
      clearInterval(timer);
    },
    inFlight: () => total,
    settled: () => (total === 0 ? Promise.resolve() : new Promise<void>((resolve) => waiters.push(resolve))),
  };
}
