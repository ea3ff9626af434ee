/**
 * A file named on the command line that is not there is the same mistake for every command:
 * `file not found: <path>`, one line, exit 2, and no store created. Not store-specific: the
 * check comes before any store opens.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli } from '../../src/testing/cli.ts';
import { testTempDir } from '../../src/testing/temp-dir.ts';

const CASES: Array<{ args: string[]; missing: string }> = [
  { args: ['flow', 'run', 'nope.json'], missing: 'nope.json' },
  { args: ['flow', 'run', 'charts/nope'], missing: 'charts/nope' },
  { args: ['flow', 'import', 'nope.json'], missing: 'nope.json' },
  { args: ['world', 'apply', 'nope'], missing: 'nope' },
  { args: ['world', 'create', 'park', '--scenario', 'nope'], missing: 'nope' },
  { args: ['agent', 'put', 'nope.json'], missing: 'nope.json' },
  { args: ['agent', 'chat', 'nope.json'], missing: 'nope.json' },
  { args: ['source', 'invoke', 'nope.json'], missing: 'nope.json' },
  { args: ['dev', 'scripted-model', '--script', 'nope.json'], missing: 'nope.json' },
  { args: ['dev', 'up', '--script', 'nope.json'], missing: 'nope.json' },
];

test('every command that takes a file says "file not found", exit 2, and creates no store', async () => {
  const dir = testTempDir('noema-missing-');
  const db = join(dir, 'data', 'n.db');
  for (const { args, missing } of CASES) {
    const r = await runCli(args, { NOEMA_DB: db, NOEMA_DATA_DIR: join(dir, 'state') }, 30_000, { cwd: dir });
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.equal(r.stderr, `noema: file not found: ${missing}\n`, args.join(' '));
    assert.equal(r.stdout, '', args.join(' '));
    assert.equal(existsSync(db), false, `${args.join(' ')} created the store`);
  }
});

test('a missing file named by a flag of source invoke is found missing before the store opens', async () => {
  const dir = testTempDir('noema-missing-');
  const db = join(dir, 'n.db');
  const source = join(import.meta.dirname, '../../examples/park/sources/weather.json');
  for (const flag of ['--result-schema', '--mcp-server']) {
    const r = await runCli(['source', 'invoke', source, flag, 'gone.json'], { NOEMA_DB: db }, 30_000, {
      cwd: dir,
    });
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.stderr, 'noema: file not found: gone.json\n');
    assert.equal(existsSync(db), false);
  }
});
