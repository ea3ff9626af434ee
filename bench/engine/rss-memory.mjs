// What the idle-RSS probes report: RSS, and on Linux how much of it is anonymous memory (heap, the
// process's own allocations) and how much file-backed (pages of the node binary and other mapped
// files). The file-backed part depends on the kernel as much as on the program: some map the
// binary's text in 2 MB folios (`FilePmdMapped`), counting all of each folio once any byte is read.
import { readFileSync } from 'node:fs';

/** `{ rss_mb, anon_mb, file_mb }` of this process (the last two null where /proc is not there). */
export function memory() {
  const rss_mb = process.memoryUsage().rss / 1048576;
  let rollup = '';
  try {
    rollup = readFileSync('/proc/self/smaps_rollup', 'utf8');
  } catch {
    return { rss_mb, anon_mb: null, file_mb: null };
  }
  const kb = (field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(rollup)?.[1] ?? Number.NaN);
  const anon_mb = kb('Anonymous') / 1024;
  return { rss_mb, anon_mb, file_mb: kb('Rss') / 1024 - anon_mb };
}
