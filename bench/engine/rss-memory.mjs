// What the idle-RSS probes report: RSS, and on Linux how much of it is anonymous memory (heap, the
// process's own allocations) and how much is the rest (pages of the node binary and other mapped
// files, shared memory). The rest depends on the kernel as much as on the program: some map the
// binary's text in 2 MB folios (`FilePmdMapped`), counting all of each folio once any byte is read.
import { readFileSync } from 'node:fs';

/**
 * `{ rss_mb, anon_mb, file_mb }` of this process, all three from one reading of
 * /proc/self/smaps_rollup where there is one (so the parts add up to the whole); elsewhere RSS
 * from `process.memoryUsage()` and the parts null.
 */
export function memory() {
  let rollup = '';
  try {
    rollup = readFileSync('/proc/self/smaps_rollup', 'utf8');
  } catch {
    return { rss_mb: process.memoryUsage().rss / 1048576, anon_mb: null, file_mb: null };
  }
  const kb = (field) => {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(rollup);
    return m ? Number(m[1]) : null;
  };
  const rss = kb('Rss');
  const anon = kb('Anonymous');
  if (rss === null) return { rss_mb: process.memoryUsage().rss / 1048576, anon_mb: null, file_mb: null };
  return {
    rss_mb: rss / 1024,
    anon_mb: anon === null ? null : anon / 1024,
    file_mb: anon === null ? null : (rss - anon) / 1024,
  };
}
