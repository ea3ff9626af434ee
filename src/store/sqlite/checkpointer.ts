/**
 * WAL checkpoints off the commit path. SQLite's automatic checkpoint runs inside the COMMIT that
 * crosses 1000 pages and fsyncs there, so about one call in a hundred paid milliseconds. The
 * store's connection turns it off (`wal_autocheckpoint = 0`); every `COMMITS_PER_CHECKPOINT`
 * write commits this asks a worker thread, holding its own connection to the same file, for a
 * PASSIVE checkpoint, which takes no write lock: commits go on while it copies and fsyncs.
 *
 * SQLite restarts the log only when a writer begins with the whole log copied, which commits
 * racing the worker can prevent forever; past `RESTART_AFTER_FRAMES` the store holds its writers
 * back (they wait without blocking the event loop) while the worker copies the rest
 * (`completeCopy`), so the next commit restarts the log: the store's thread does not spend the
 * copy's milliseconds and fsync. And if the event loop never turns (a loop of store calls with no
 * I/O cannot hear the worker), the store checkpoints right after the commit that reaches
 * `INLINE_AFTER_COMMITS`, as SQLite would: the WAL stays bounded whatever the caller does.
 *
 * A request waits for the event loop's next turn. A loop that never turns cannot hear the worker,
 * and the inline checkpoint does the work there, so where one ran before the turn came the
 * request is dropped: a process that only ever commits in such loops (an engine run of
 * synchronous nodes, a script) never starts the worker, whose start costs about 45 ms of CPU.
 */
import type { Worker } from 'node:worker_threads';

/** Commits between checkpoint requests to the worker. */
export const COMMITS_PER_CHECKPOINT = 256;
/** The log's length (frames) past which the worker finishes the copy, the writers held back. */
export const RESTART_AFTER_FRAMES = 4096;
/** Commits without any completed checkpoint after which the store checkpoints inline. */
export const INLINE_AFTER_COMMITS = 1024;

// CommonJS source for an eval'd worker: one connection, one checkpoint per request.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { DatabaseSync } = require('node:sqlite');
const db = new DatabaseSync(workerData.path);
db.exec('PRAGMA busy_timeout = ' + workerData.busyTimeoutMs);
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
// 1 while a checkpoint runs here, so a store thread that cannot hear replies can wait it out.
const running = new Int32Array(workerData.running);
parentPort.on('message', (m) => {
  if (m === 'close') {
    db.close();
    parentPort.close();
    return;
  }
  Atomics.store(running, 0, 1);
  try {
    const r = checkpoint.get();
    parentPort.postMessage({ log: Number(r.log), checkpointed: Number(r.checkpointed) });
  } catch (err) {
    parentPort.postMessage({ error: String((err && err.message) || err) });
  } finally {
    Atomics.store(running, 0, 0);
    Atomics.notify(running, 0);
  }
});
`;

/** The worker's answer to one checkpoint request: SQLite's counts of frames, or why it failed. */
type Reply = { log: number; checkpointed: number } | { error: string };

export interface Checkpointer {
  /** Counts one write commit. True when the caller must checkpoint inline now (see above). */
  committed(): boolean;
  /** The store checkpointed on its own connection. */
  checkpointed(): void;
  /**
   * Blocks (up to `ms`) while the worker is mid-checkpoint: for the inline checkpoint, whose
   * thread has not turned its event loop and so cannot hear the worker finish.
   */
  awaitWorkerCheckpoint(ms: number): void;
  /**
   * Has the worker checkpoint once more, after any checkpoint in flight, and resolves when it has:
   * true when it ran, false when the worker could not (stopped, busy) and the caller must copy the
   * log itself. The caller holds its writers back meanwhile, so the copy reaches the log's end.
   */
  completeCopy(): Promise<boolean>;
  /** Stops the worker (after its checkpoint in flight, if any). */
  close(): Promise<void>;
}

export interface CheckpointerHooks {
  /** The log is long and commits keep it from restarting: the store should `completeCopy`, soon. */
  restart(): void;
  /** The worker cannot run: turn SQLite's automatic checkpoint back on. */
  fallback(): void;
}

export function createCheckpointer(
  path: string,
  busyTimeoutMs: number,
  hooks: CheckpointerHooks,
): Checkpointer {
  let worker: Worker | null = null;
  let stopped = false;
  let commits = 0;
  let sinceCheckpoint = 0;
  /** The request in flight: resolved with the worker's reply (or an error when it stopped). */
  let inFlight: Promise<Reply> | null = null;
  /** A request waits for the event loop to turn (see above). */
  let asking = false;
  /** The store checkpointed inline since that request was made. */
  let inlineSinceAsked = false;
  let answer: ((r: Reply) => void) | null = null;
  let exited: Promise<void> | null = null;
  const running = new Int32Array(new SharedArrayBuffer(4));

  const fail = (why: string) => {
    if (stopped) return;
    stopped = true;
    worker = null;
    settle({ error: why });
    // Logged once per store; checkpoints carry on, on the commit path again.
    console.error(
      `noema: SQLite checkpoint worker for ${path} stopped (${why}); using automatic checkpoints`,
    );
    hooks.fallback();
  };
  const start = (): Worker => {
    // Loaded on the first checkpoint request, synchronously: `node:worker_threads` weighs about
    // 2.5 MB of RSS, which a process that never reaches COMMITS_PER_CHECKPOINT commits never needs.
    const { Worker } = process.getBuiltinModule('node:worker_threads');
    const w = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { path, busyTimeoutMs, running: running.buffer },
    });
    w.unref();
    w.on('message', (r: Reply) => {
      // A busy or locked file only delays this checkpoint: the next request retries it.
      if ('error' in r) {
        if (!/busy|locked/i.test(r.error)) fail(r.error);
      } else sinceCheckpoint = 0;
      settle(r);
    });
    w.on('error', (err) => fail(err.message));
    exited = new Promise((resolve) =>
      w.once('exit', () => {
        // It never exits on its own: gone without a word, no request may be left waiting for it.
        if (!stopped) fail('it exited');
        settle({ error: 'the worker exited' });
        resolve();
      }),
    );
    return w;
  };
  const settle = (r: Reply) => {
    const a = answer;
    answer = null;
    inFlight = null;
    a?.(r);
  };
  const request = (): Promise<Reply> => {
    const reply = new Promise<Reply>((resolve) => {
      answer = resolve;
    });
    inFlight = reply;
    worker ??= start();
    worker.postMessage('checkpoint');
    return reply;
  };
  /** The periodic request, on the event loop's turn after the commit that made it. */
  const ask = () => {
    asking = false;
    if (stopped || inFlight || inlineSinceAsked) return;
    void request().then((r) => {
      // Copied up to where it began; commits made meanwhile keep the log from restarting.
      if (!('error' in r) && r.log > RESTART_AFTER_FRAMES) hooks.restart();
    });
  };
  return {
    committed() {
      if (stopped) return false;
      sinceCheckpoint += 1;
      if (sinceCheckpoint >= INLINE_AFTER_COMMITS) return true;
      if (++commits % COMMITS_PER_CHECKPOINT === 0 && !inFlight && !asking) {
        asking = true;
        inlineSinceAsked = false;
        // Unref'd: a process about to exit needs no checkpoint (the last connection's close makes one).
        setImmediate(ask).unref();
      }
      return false;
    },
    async completeCopy() {
      while (inFlight) await inFlight;
      if (stopped) return false;
      return !('error' in (await request()));
    },
    checkpointed() {
      sinceCheckpoint = 0;
      inlineSinceAsked = true;
    },
    awaitWorkerCheckpoint(ms) {
      Atomics.wait(running, 0, 1, ms);
    },
    async close() {
      const w = worker;
      stopped = true;
      worker = null;
      if (!w) return;
      // Held (ref'd) while closing: an awaited close must keep the process alive until it ends.
      w.ref();
      w.postMessage('close');
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, 2_000);
      });
      await Promise.race([exited, timeout]);
      clearTimeout(timer);
      await w.terminate();
      settle({ error: 'closed' });
    },
  };
}
