/**
 * Opening a SQLite database file for a store: created owner-only (traces hold prompts and tool
 * results), and checked to be a writable SQLite database before any caller relies on it, so a
 * wrong `NOEMA_DB` is one clear error at start instead of a server that fails every write.
 */
import { closeSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { NoemaError } from '../../core/errors.ts';
import { isSqliteBusy, translateSqliteError } from './translate-error.ts';

const SQLITE_READONLY = 8;
const SQLITE_CANTOPEN = 14;
const SQLITE_NOTADB = 26;

/** Creates the directory (0700) and an empty database file (0600) if they do not exist yet. */
function createOwnerOnly(path: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  try {
    // SQLite gives its -wal and -shm files the database file's mode, so they follow.
    closeSync(openSync(path, 'wx', 0o600));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
}

/** Takes and releases the write lock: fails now on a file that is not a database or read-only. */
function probeWritable(db: DatabaseSync): void {
  try {
    db.exec('BEGIN IMMEDIATE');
    db.exec('ROLLBACK');
  } catch (err) {
    // Another process holds the write lock: the file is a live database; transactions will queue.
    if (isSqliteBusy(err)) return;
    throw err;
  }
}

/** Blocks the thread for `ms` (the store's constructor is synchronous, as SQLite's busy handler is). */
function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Switches the database to WAL (`PRAGMA journal_mode = WAL`; nothing to do when it is already). The
 * switch reads the file, then takes its write lock; SQLite refuses that upgrade at once, without its
 * busy handler, while another connection holds the write lock (two connections upgrading together
 * would wait on each other forever) — as happens when processes open one new file together. So the
 * switch is tried again, a few milliseconds apart, until `busyTimeoutMs` has passed: the wait any
 * other lock gets. Past it, STORE_BUSY.
 */
export function enterWal(db: DatabaseSync, busyTimeoutMs: number): void {
  const deadline = performance.now() + busyTimeoutMs;
  for (let pauseMs = 1; ; pauseMs = Math.min(pauseMs * 2, 50)) {
    try {
      db.exec('PRAGMA journal_mode = WAL');
      return;
    } catch (err) {
      const leftMs = deadline - performance.now();
      if (!isSqliteBusy(err) || leftMs <= 0) throw translateSqliteError(err);
      sleepSync(Math.min(pauseMs, leftMs));
    }
  }
}

function why(err: unknown, path: string): string {
  const errcode = (err as { errcode?: unknown }).errcode;
  if (typeof errcode === 'number') {
    if ((errcode & 0xff) === SQLITE_NOTADB) return 'the file is not a SQLite database';
    if ((errcode & 0xff) === SQLITE_READONLY) return 'the database is read-only';
    if ((errcode & 0xff) === SQLITE_CANTOPEN) {
      try {
        if (statSync(path).isDirectory()) return 'the path is a directory';
      } catch {
        // Fall through to SQLite's own words.
      }
    }
  }
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') return 'permission denied';
  if (code === 'ENOTDIR') return 'a parent of the path is not a directory';
  return (err as Error).message ?? String(err);
}

/**
 * Opens `path` (or `:memory:`) as a writable SQLite database. A path that cannot be one is
 * `CONFIG_INVALID` naming `setting` (the CLI prints it as one line and exits 2).
 */
export function openDatabaseFile(path: string, setting: string): DatabaseSync {
  if (path === ':memory:') return new DatabaseSync(path);
  let db: DatabaseSync | undefined;
  try {
    createOwnerOnly(path);
    db = new DatabaseSync(path);
    probeWritable(db);
    return db;
  } catch (err) {
    db?.close();
    throw new NoemaError('CONFIG_INVALID', `cannot open SQLite database at ${path}: ${why(err, path)}`, {
      details: { setting, path },
      hint: `set ${setting} to a writable SQLite database file, or a new path`,
    });
  }
}
