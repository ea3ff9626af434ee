/**
 * A `NOEMA_DB` that cannot serve (not a database, read-only, a directory, a PostgreSQL server
 * that refuses us) is one line naming the setting, exit 2, nothing written, and no password shown.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { init } from '../../src/memory/index.ts';
import { openStore, parseStoreTarget } from '../../src/store/index.ts';
import { type CliResult, NOEMA_BIN, runCli } from '../../src/testing/cli.ts';
import { createTestLocation, selectedStores, testPostgresUrl } from '../../src/testing/stores.ts';
import { testTempDir } from '../../src/testing/temp-dir.ts';

function assertOneLineError(r: CliResult, pattern: RegExp): void {
  assert.equal(r.code, 2, r.stderr);
  const lines = r.stderr.trim().split('\n');
  assert.equal(lines.length, 1, r.stderr);
  assert.match(lines[0]!, pattern);
}

function tempDir(): string {
  return testTempDir('noema-badstore-');
}

test('a NOEMA_DB file that is not a SQLite database is one line naming NOEMA_DB and is left unchanged', async () => {
  const file = join(tempDir(), 'notes.txt');
  writeFileSync(file, 'these are my notes, not a database\n');
  const r = await runCli(['migrate'], { NOEMA_DB: file });
  assertOneLineError(r, /not a SQLite database.*NOEMA_DB/);
  assert.equal(readFileSync(file, 'utf8'), 'these are my notes, not a database\n');
});

test('a --db naming a directory is one line naming --db', async () => {
  const dir = tempDir();
  const r = await runCli(['migrate', '--db', dir]);
  assertOneLineError(r, /is a directory.*--db/);
  assert.deepEqual(readdirSync(dir), []);
});

test('serve refuses a non-database NOEMA_DB before listening', async () => {
  const file = join(tempDir(), 'x.db');
  writeFileSync(file, 'garbage');
  const r = await runCli(['serve', '--port', '0'], { NOEMA_DB: file });
  assertOneLineError(r, /not a SQLite database.*NOEMA_DB/);
  assert.doesNotMatch(r.stdout, /serving/);
});

/** Runs the CLI as an unprivileged user, so file permissions bind even when tests run as root. */
function runCliAs(uid: number | undefined, args: string[], env: NodeJS.ProcessEnv): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [NOEMA_BIN, ...args], {
      env: { ...process.env, ...env },
      ...(uid === undefined ? {} : { uid, gid: uid }),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`timed out: ${stderr}`));
    }, 30_000);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * Why `nobody` cannot run this clone's Node and CLI (a folder above them closed to other users,
 * as a clone under a 0700 /root is), or undefined when it can.
 */
async function unreachableBy(uid: number): Promise<string | undefined> {
  try {
    const r = await runCliAs(uid, ['--help'], {});
    if (r.code === 0) return undefined;
    return `user ${uid} cannot run ${NOEMA_BIN} (exit ${r.code}: ${r.stderr.trim().split('\n')[0]})`;
  } catch (error) {
    return `user ${uid} cannot run ${process.execPath} (${(error as NodeJS.ErrnoException).code ?? error}): a folder above the clone is closed to other users`;
  }
}

test('a read-only NOEMA_DB is refused at start, not at the first write', async (t) => {
  // As root, permissions do not bind: run the child as `nobody` (uid 65534) instead.
  const uid = process.getuid?.() === 0 ? 65534 : undefined;
  const unreachable = uid === undefined ? undefined : await unreachableBy(uid);
  if (unreachable) {
    t.skip(`${unreachable}; this check needs a clone other users can enter`);
    return;
  }
  const dir = tempDir();
  chmodSync(dir, 0o755);
  const file = join(dir, 'ro.db');
  const created = await runCli(['migrate'], { NOEMA_DB: file });
  assert.equal(created.code, 0, created.stderr);
  chmodSync(file, 0o444);
  const before = readFileSync(file);
  const r = await runCliAs(uid, ['migrate'], { NOEMA_DB: file });
  assertOneLineError(r, /read-only.*NOEMA_DB/);
  assert.deepEqual(readFileSync(file), before);
});

test('a new data directory and database files are readable by their owner only', async () => {
  const dir = join(tempDir(), 'data', 'nested');
  const file = join(dir, 'noema.db');
  const server = spawn(process.execPath, [NOEMA_BIN, 'serve', '--port', '0'], {
    env: { ...process.env, NOEMA_DB: file, NOEMA_TOKEN: 'a-token-of-sixteen-chars' },
  });
  try {
    await new Promise<void>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error(`serve did not start: ${out}`)), 30_000);
      server.stdout.on('data', (d) => {
        out += d;
        if (/serving on/.test(out)) {
          clearTimeout(timer);
          resolve();
        }
      });
      server.on('exit', (code) => reject(new Error(`serve exited ${code}`)));
    });
    const mode = (p: string) => (statSync(p).mode & 0o777).toString(8);
    assert.equal(mode(dir), '700');
    for (const name of readdirSync(dir)) {
      if (/^noema\.db(-wal|-shm)?$/.test(name)) assert.equal(mode(join(dir, name)), '600', name);
    }
    assert.ok(readdirSync(dir).includes('noema.db-wal'), `WAL file expected: ${readdirSync(dir).join(', ')}`);
  } finally {
    server.kill('SIGTERM');
  }
});

test('a SQLite database whose directory already exists keeps that directory as it was', async () => {
  const dir = tempDir();
  chmodSync(dir, 0o755);
  mkdirSync(join(dir, 'sub'), { mode: 0o755 });
  chmodSync(join(dir, 'sub'), 0o755);
  const r = await runCli(['migrate'], { NOEMA_DB: join(dir, 'sub', 'n.db') });
  assert.equal(r.code, 0, r.stderr);
  assert.equal((statSync(join(dir, 'sub')).mode & 0o777).toString(8), '755');
  assert.equal((statSync(join(dir, 'sub', 'n.db')).mode & 0o777).toString(8), '600');
});

if (selectedStores().includes('postgres')) {
  const base = new URL(testPostgresUrl());
  const withUrl = (edit: (u: URL) => void) => {
    const u = new URL(base);
    edit(u);
    return u.toString();
  };
  const cases: Array<[string, string, RegExp]> = [
    [
      'an unknown role',
      withUrl((u) => {
        u.username = 'noema_no_such_role';
        u.searchParams.set('password', 'sekrit-query');
      }),
      /role/,
    ],
    [
      'a missing database',
      withUrl((u) => {
        u.pathname = '/noema_no_such_database';
        u.password = 'sekrit-userinfo';
      }),
      /database does not exist/,
    ],
    [
      'a refused connection',
      withUrl((u) => {
        u.port = '1';
        u.searchParams.set('password', 'sekrit-query');
      }),
      /refused/,
    ],
    [
      'a host that does not resolve',
      withUrl((u) => {
        u.hostname = 'noema-no-such-host.invalid';
        u.searchParams.set('password', 'sekrit-query');
      }),
      /host/,
    ],
  ];
  for (const [label, url, cause] of cases) {
    test(`[postgres] ${label} is one line naming the cause and NOEMA_DB, without the password`, async () => {
      const r = await runCli(['migrate'], { NOEMA_DB: url });
      assertOneLineError(r, cause);
      assert.match(r.stderr, /NOEMA_DB/);
      assert.doesNotMatch(r.stderr + r.stdout, /sekrit/);
    });
  }

  test('[postgres] a password in the URL query is shown nowhere (stdout, branchmind_init storage_dir)', async () => {
    const location = await createTestLocation('postgres');
    try {
      const u = new URL(location.url);
      u.searchParams.set('password', 'sekrit-query');
      const r = await runCli(['migrate'], { NOEMA_DB: u.toString() });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /password=\*\*\*/);
      assert.doesNotMatch(r.stdout + r.stderr, /sekrit/);
      const store = await openStore(parseStoreTarget(u.toString()));
      try {
        assert.doesNotMatch(store.location, /sekrit/);
        const ws = await init(store, { workspace: 'redaction' });
        assert.match(ws.storage_dir, /password=\*\*\*/);
        assert.doesNotMatch(JSON.stringify(ws), /sekrit/);
      } finally {
        await store.close();
      }
    } finally {
      await location.drop();
    }
  });
}
