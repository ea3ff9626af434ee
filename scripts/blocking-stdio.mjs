/**
 * Preloaded into every test process by `scripts/test.ts`: makes stdout and stderr blocking.
 *
 * Each test file runs in a child that streams its results to the runner over a pipe, and on Linux
 * pipe writes are asynchronous. With `--test-force-exit` the child exits as soon as its tests end,
 * dropping whatever results were still queued: the runner then reported fewer tests than ran (989 →
 * 984 between two runs of the same suite), and a failing test's name and error could vanish with
 * them (nodejs/node#64833). Blocking writes are complete when they return, so nothing is queued.
 * Plain JavaScript: the test processes' children (CLI servers) inherit it through NODE_OPTIONS, and a
 * TypeScript preload would make each of them load Node's type stripper before its compile cache.
 */
for (const stream of [process.stdout, process.stderr]) stream._handle?.setBlocking?.(true);

// Only the runner and the test files' processes: a test file's own children (servers, CLIs) keep
// Node's default, since a blocking write to a pipe their test never reads would stall them.
if (process.env.NODE_TEST_CONTEXT && process.env.NODE_OPTIONS) {
  const self = `--import=${import.meta.url}`;
  process.env.NODE_OPTIONS = process.env.NODE_OPTIONS.split(' ')
    .filter((o) => o !== self)
    .join(' ');
}
