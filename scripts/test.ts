/**
 * `npm test`: runs every test file with node's test runner against the stores in STORES
 * (default `sqlite,postgres`). Checks PostgreSQL first so a stopped server is one clear line.
 * Every test has a timeout (NOEMA_TEST_TIMEOUT_MS, default 120 s) so a regression that hangs
 * fails with the test's name instead of stalling CI.
 */
import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { selectedStores, testPostgresUrl } from '../src/testing/stores.ts';

let stores: ReturnType<typeof selectedStores>;
try {
  stores = selectedStores();
} catch (err) {
  console.error(`npm test: ${(err as Error).message}`);
  process.exit(2);
}
const timeoutMs = Number(process.env.NOEMA_TEST_TIMEOUT_MS ?? 120_000);
if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) {
  console.error(
    `npm test: NOEMA_TEST_TIMEOUT_MS must be a positive integer (got "${process.env.NOEMA_TEST_TIMEOUT_MS}")`,
  );
  process.exit(2);
}
if (stores.includes('postgres')) {
  const client = new pg.Client({ connectionString: testPostgresUrl(), connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.end();
  } catch (err) {
    console.error(
      `npm test: PostgreSQL at ${testPostgresUrl()} is unreachable (${(err as Error).message}).\n` +
        'Start it, set NOEMA_TEST_POSTGRES_URL, or run only the embedded store with STORES=sqlite npm test.',
    );
    process.exit(2);
  }
}
const patterns =
  process.argv.slice(2).length > 0 ? process.argv.slice(2) : ['src/**/*.test.ts', 'test/**/*.test.ts'];
const blockingStdio = pathToFileURL(join(import.meta.dirname, 'blocking-stdio.mjs')).href;
console.log(`npm test: stores ${stores.join(', ')}; per-test timeout ${timeoutMs} ms`);
// The report goes to a file, relayed here as it grows: with --test-force-exit the runner exits as soon
// as the last file's tests end, and a report written to a pipe could lose its tail — the last results
// and the summary (seen under load: the report stopped mid-file, exit 0). A file destination is
// flushed and closed by the runner before it exits.
const reportDir = mkdtempSync(join(tmpdir(), 'noema-test-report-'));
const report = join(reportDir, 'report.txt');
writeFileSync(report, '');
const runner = spawn(
  process.execPath,
  [
    '--test',
    '--test-concurrency=3',
    `--test-timeout=${timeoutMs}`,
    '--test-force-exit',
    '--test-reporter=spec',
    `--test-reporter-destination=${report}`,
    ...patterns,
  ],
  {
    stdio: 'inherit',
    env: {
      ...process.env,
      STORES: stores.join(','),
      // Every test process (the runner and each file's child) loads it: see scripts/blocking-stdio.mjs.
      NODE_OPTIONS: [process.env.NODE_OPTIONS, `--import=${blockingStdio}`].filter(Boolean).join(' '),
    },
  },
);
const fd = openSync(report, 'r');
const chunk = Buffer.alloc(1 << 16);
/** Copies what the report gained since the last call to stdout (queued there; flushed before this process ends). */
const relay = () => {
  for (;;) {
    const n = readSync(fd, chunk, 0, chunk.length, null);
    if (n === 0) return;
    process.stdout.write(Buffer.from(chunk.subarray(0, n)));
  }
};
const tail = setInterval(relay, 200);
const code = await new Promise<number>((resolve) => runner.on('exit', (status) => resolve(status ?? 1)));
clearInterval(tail);
relay();
closeSync(fd);
rmSync(reportDir, { recursive: true, force: true });
// Not process.exit(): nothing else keeps this process alive, and ending on its own flushes stdout.
process.exitCode = code;
