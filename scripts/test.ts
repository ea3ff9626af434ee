/**
 * `npm test`: runs every test file with node's test runner against the stores in STORES
 * (default `sqlite,postgres`). Checks PostgreSQL first so a stopped server is one clear line.
 */
import { spawnSync } from 'node:child_process';
import pg from 'pg';
import { selectedStores, testPostgresUrl } from '../src/testing/stores.ts';

const stores = selectedStores();
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
console.log(`npm test: stores ${stores.join(', ')}`);
const r = spawnSync(process.execPath, ['--test', '--test-concurrency=3', ...patterns], {
  stdio: 'inherit',
  env: { ...process.env, STORES: stores.join(',') },
});
process.exit(r.status ?? 1);
