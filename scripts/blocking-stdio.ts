/**
 * Preloaded into every test process by `scripts/test.ts`: makes stdout and stderr blocking.
 *
 * Each test file runs in a child that streams its results to the runner over a pipe, and on Linux
 * pipe writes are asynchronous. With `--test-force-exit` the child exits as soon as its tests end,
 * dropping whatever results were still queued: the runner then reported fewer tests than ran (989 →
 * 984 between two runs of the same suite), and a failing test's name and error could vanish with
 * them (nodejs/node#64833). Blocking writes are complete when they return, so nothing is queued.
 */
interface BlockingHandle {
  setBlocking?: (blocking: boolean) => void;
}

for (const stream of [process.stdout, process.stderr]) {
  (stream as unknown as { _handle?: BlockingHandle })._handle?.setBlocking?.(true);
}
