/** Bad CLI flag values are one line naming the flag, exit 2, and nothing written or served. */
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { type CliResult, runCli } from '../../src/testing/cli.ts';
import { testTempDir } from '../../src/testing/temp-dir.ts';

function assertOneLineError(r: CliResult, pattern: RegExp): void {
  assert.equal(r.code, 2, r.stderr);
  const lines = r.stderr.trim().split('\n');
  assert.equal(lines.length, 1, r.stderr);
  assert.match(lines[0]!, pattern);
  assert.equal(r.stdout, '');
}

test('an unknown --kind is one line naming --kind, and no store is created', async () => {
  const dir = testTempDir('noema-flags-');
  const source = join(dir, 'source.json');
  writeFileSync(source, JSON.stringify({ version: 1, interface: { name: 'http_json', url_env: 'X_URL' } }));
  const db = join(dir, 'data', 'n.db');
  const r = await runCli(['source', 'invoke', source, '--kind', 'telepathy'], { NOEMA_DB: db });
  assertOneLineError(r, /--kind is invalid: "telepathy" is not one of llm_generation, .*manual/);
  assert.equal(existsSync(db), false);
});

test('an invalid regular expression in a model script is one line naming --script and the rule', async () => {
  const dir = testTempDir('noema-flags-');
  const script = join(dir, 'model.json');
  writeFileSync(
    script,
    JSON.stringify({
      rules: [{ reply: { text: 'a' } }, { match: { message_matches: '(unclosed' }, reply: { text: 'b' } }],
    }),
  );
  const r = await runCli(['dev', 'scripted-model', '--script', script, '--port', '0']);
  assertOneLineError(
    r,
    /--script is invalid: .*\/rules\/1\/match\/message_matches is not a valid regular expression/,
  );
});

test('a model script that is not JSON is one line naming --script', async () => {
  const dir = testTempDir('noema-flags-');
  const script = join(dir, 'model.json');
  writeFileSync(script, '{ rules: ');
  assertOneLineError(
    await runCli(['dev', 'scripted-model', '--script', script]),
    /--script is invalid: .*not JSON/,
  );
});

test('bad numeric flags are one line naming the flag, never coerced', async () => {
  for (const value of ['1e3', '-1', 'lots', '', '2.5', '0x10']) {
    const r = await runCli(['dev', 'toys', '--port', '0', '--vending-stock', value]);
    assertOneLineError(r, /--vending-stock/);
  }
});
