/**
 * The test runner fails loudly: an empty or unknown STORES is a usage error (never zero store
 * tests reported green), a hanging test fails on the per-test timeout instead of stalling CI, and
 * every result a test file produced reaches the report.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { selectedStores } from '../../src/testing/stores.ts';
import { testTempDir } from '../../src/testing/temp-dir.ts';

const run = (env: Record<string, string>, files: string[]) =>
  spawnSync(process.execPath, ['scripts/test.ts', ...files], {
    // Without NODE_TEST_CONTEXT the child runs as a top-level runner, not as a reporter of ours.
    env: {
      ...Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'NODE_TEST_CONTEXT')),
      ...env,
    },
    encoding: 'utf8',
    timeout: 60_000,
    maxBuffer: 64 * 1024 * 1024,
  });

test('STORES empty or unknown exits 2 with one line naming STORES', () => {
  for (const value of ['', ' , ', 'mysql', 'sqlite,postgress']) {
    const r = run({ STORES: value }, ['test/testing/fixtures/hangs.fixture.ts']);
    assert.equal(r.status, 2, `STORES="${value}": ${r.stderr}`);
    assert.match(r.stderr, /STORES/);
  }
});

test('selectedStores refuses an empty or unknown STORES instead of selecting nothing', () => {
  const saved = process.env.STORES;
  try {
    process.env.STORES = '';
    assert.throws(() => selectedStores(), /STORES is empty/);
    process.env.STORES = 'sqlite,oracle';
    assert.throws(() => selectedStores(), /unknown store "oracle"/);
    process.env.STORES = 'sqlite, sqlite';
    assert.deepEqual(selectedStores(), ['sqlite']);
  } finally {
    if (saved === undefined) delete process.env.STORES;
    else process.env.STORES = saved;
  }
});

test('a test that never settles fails on the per-test timeout', () => {
  const r = run({ STORES: 'sqlite', NOEMA_TEST_TIMEOUT_MS: '300' }, [
    'test/testing/fixtures/hangs.fixture.ts',
  ]);
  assert.notEqual(r.status, 0, 'the hanging test failed');
  assert.equal(r.signal, null, 'the runner ended by itself, not by our kill');
  assert.match(r.stdout, /timed out after 300ms/);
});

test('every result reaches the report: files whose results are still being written when they end lose none', () => {
  // Results written just before a file's process exits are the ones --test-force-exit could drop
  // (nodejs/node#64833): long names make each file's last writes large, as a suite's do.
  const dir = testTempDir('noema-runner-');
  try {
    const files = [];
    for (let f = 0; f < 6; f++) {
      const tests = Array.from({ length: 300 }, (_, i) => `test('t${i} ${'x'.repeat(1500)}', () => {});`);
      const file = join(dir, `r${f}.test.mjs`);
      writeFileSync(file, `import { test } from 'node:test';\n${tests.join('\n')}\n`);
      files.push(file);
    }
    const r = run({ STORES: 'sqlite' }, files);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^ℹ tests 1800$/m);
    assert.match(r.stdout, /^ℹ pass 1800$/m);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
