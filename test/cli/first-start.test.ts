/**
 * A first start (cold compile cache) ends up as a warm start: the cache is filled by a short-lived
 * child, and the process that keeps running re-executes itself (same pid) so that it does not carry
 * what spawning the child loaded. Not store-specific: no store is opened.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { testTempDir } from '../../src/testing/temp-dir.ts';

const precompile = pathToFileURL(resolve(import.meta.dirname, '../../bin/precompile.js')).href;

test('a first start fills the compile cache in a child, then runs as a warm start in the same pid', () => {
  const dir = testTempDir('noema-first-start-');
  const cache = join(dir, 'cache');
  const script = join(dir, 'start.mjs');
  // What the process that keeps running reports once past precompileOnce.
  writeFileSync(
    script,
    `import { precompileOnce } from ${JSON.stringify(precompile)};
precompileOnce(${JSON.stringify(cache)});
const loaded = process.moduleLoadList.some((m) => m.endsWith(' child_process'));
console.log(JSON.stringify({ pid: process.pid, child_process: loaded }));
`,
  );
  const run = () => {
    const r = spawnSync(process.execPath, [script], { encoding: 'utf8', timeout: 120_000 });
    assert.equal(r.status, 0, r.stderr);
    const lines = r.stdout.trim().split('\n');
    assert.equal(lines.length, 1, `one process reported: ${r.stdout}`);
    const reported = JSON.parse(lines[0]!) as { pid: number; child_process: boolean };
    return { spawned: r.pid, reported: reported.pid, child_process: reported.child_process };
  };
  const first = run();
  assert.ok(
    readdirSync(cache).some((f) => f.endsWith('.precompiled')),
    'the cache was filled and marked',
  );
  assert.equal(first.reported, first.spawned, 'the process that reported is the one started');
  assert.equal(first.child_process, false, 'the first start does not keep node:child_process loaded');
  const second = run();
  assert.equal(second.reported, second.spawned);
  assert.equal(second.child_process, false);
});
