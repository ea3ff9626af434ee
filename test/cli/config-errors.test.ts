/** Bad configuration gives a one-line error naming the setting, exit code 2, and changes nothing. */
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { migrations } from '../../src/app/migrations.ts';
import { runCli } from '../../src/testing/cli.ts';
import { openTestStore, selectedStores } from '../../src/testing/stores.ts';
import { testTempDir } from '../../src/testing/temp-dir.ts';

function assertOneLineError(r: { code: number | null; stderr: string }, pattern: RegExp): void {
  assert.equal(r.code, 2, r.stderr);
  const lines = r.stderr.trim().split('\n');
  assert.equal(lines.length, 1, r.stderr);
  assert.match(lines[0]!, pattern);
}

test('an unsupported NOEMA_DB scheme is a one-line error naming NOEMA_DB', async () => {
  assertOneLineError(
    await runCli(['migrate'], { NOEMA_DB: 'mysql://root@127.0.0.1/x' }),
    /NOEMA_DB is invalid/,
  );
});

test('an empty --db is a one-line error naming --db', async () => {
  assertOneLineError(await runCli(['migrate', '--db', '']), /--db is invalid/);
});

test('an unreachable PostgreSQL server is a one-line error naming NOEMA_DB, without its password', async () => {
  const r = await runCli(['migrate'], { NOEMA_DB: 'postgres://postgres:sekrit@127.0.0.1:1/nowhere' });
  assertOneLineError(r, /cannot connect to PostgreSQL.*NOEMA_DB/);
  assert.doesNotMatch(r.stderr, /sekrit/);
});

test('a NOEMA_DB path under a regular file is a one-line error and creates nothing', async () => {
  const dir = testTempDir('noema-cfg-');
  writeFileSync(join(dir, 'file'), 'x');
  assertOneLineError(
    await runCli(['migrate'], { NOEMA_DB: join(dir, 'file', 'sub', 'n.db') }),
    /SQLite.*NOEMA_DB/,
  );
});

test('a bad port is a one-line error naming the setting', async () => {
  assertOneLineError(
    await runCli(['serve', '--port', 'eighty'], { NOEMA_DB: ':memory:' }),
    /--port is invalid/,
  );
  assertOneLineError(
    await runCli(['serve'], { NOEMA_DB: ':memory:', NOEMA_PORT: '70000' }),
    /NOEMA_PORT is invalid/,
  );
});

test('unknown commands and flags are clear usage errors', async () => {
  assertOneLineError(await runCli(['frobnicate']), /unknown command "frobnicate"/);
  assertOneLineError(await runCli(['serve', '--frob']), /^noema serve: unknown flag --frob/);
});

test('--help lists the commands', async () => {
  const r = await runCli(['--help']);
  assert.equal(r.code, 0);
  assert.match(r.stdout, /serve/);
  assert.match(r.stdout, /migrate/);
});

for (const kind of selectedStores()) {
  test(`[${kind}] a store whose schema is newer than the code is refused and left unchanged`, async () => {
    const ts = await openTestStore(kind, migrations);
    try {
      await ts.store.run('INSERT INTO schema_migrations (id, name, applied_at) VALUES (?, ?, ?)', [
        999_999,
        'future',
        1,
      ]);
      const before = await ts.store.all('SELECT id FROM schema_migrations ORDER BY id');
      const r = await runCli(['migrate'], { NOEMA_DB: ts.url });
      assertOneLineError(r, /newer than this Noema/);
      assert.deepEqual(await ts.store.all('SELECT id FROM schema_migrations ORDER BY id'), before);
      if (kind === 'sqlite') assert.ok(existsSync(ts.url));
    } finally {
      await ts.dispose();
    }
  });
}

test('an unknown MCP catalog is a one-line error naming --catalog', async () => {
  assertOneLineError(await runCli(['mcp', '--catalog', 'nope']), /--catalog "nope"/);
});
