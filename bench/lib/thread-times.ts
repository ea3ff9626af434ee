/**
 * CPU time of this process's threads, by thread name, from Linux's per-task scheduler statistics
 * (`/proc/self/task/<tid>/schedstat`, nanoseconds on the CPU): the main thread, V8's compiler and
 * collector threads (`V8Worker`), Node worker threads (`WorkerThread`: the SQLite checkpointer, the
 * span export thread) and libuv's pool. `process.cpuUsage` sums them; this tells them apart. Empty
 * where `/proc` is not Linux's.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Milliseconds on the CPU so far, per thread name (threads of one name summed). */
export function threadTimes(): Map<string, number> {
  const byName = new Map<string, number>();
  let tids: string[];
  try {
    tids = readdirSync('/proc/self/task');
  } catch {
    return byName;
  }
  for (const tid of tids) {
    try {
      const name = readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim();
      const ns = Number(readFileSync(`/proc/self/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      byName.set(name, (byName.get(name) ?? 0) + ns / 1e6);
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return byName;
}

/** Per thread name, the milliseconds spent between two `threadTimes()` readings, over `per`. */
export function threadTimesSince(before: Map<string, number>, per = 1): Array<[string, number]> {
  const after = threadTimes();
  return [...after]
    .map(([name, ms]): [string, number] => [name, (ms - (before.get(name) ?? 0)) / per])
    .filter(([, ms]) => ms >= 0.01)
    .sort((a, b) => b[1] - a[1]);
}
