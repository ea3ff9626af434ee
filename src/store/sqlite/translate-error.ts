/** Maps node:sqlite errors to typed NoemaErrors, so both backends fail with the same codes. */
import { NoemaError } from '../../core/errors.ts';

const SQLITE_BUSY = 5;
const SQLITE_LOCKED = 6;
const SQLITE_IOERR = 10;
const SQLITE_FULL = 13;
const SQLITE_TOOBIG = 18;
const SQLITE_CONSTRAINT = 19;
const SQLITE_CONSTRAINT_PRIMARYKEY = 1555;
const SQLITE_CONSTRAINT_UNIQUE = 2067;

/** Whether node:sqlite's `err` is SQLite's BUSY or LOCKED: another connection holds what it needed. */
export function isSqliteBusy(err: unknown): boolean {
  const primary = Number((err as { errcode?: unknown }).errcode) & 0xff;
  return primary === SQLITE_BUSY || primary === SQLITE_LOCKED;
}

export function translateSqliteError(err: unknown): unknown {
  const errcode = (err as { errcode?: unknown }).errcode;
  if (typeof errcode !== 'number') return err;
  const message = (err as Error).message;
  const primary = errcode & 0xff;
  if (isSqliteBusy(err)) {
    return new NoemaError('STORE_BUSY', `the database is busy: ${message}`, {
      retryable: true,
      status: 503,
      hint: 'another process held the write lock past busy_timeout; retry',
      cause: err,
    });
  }
  if (primary === SQLITE_FULL || primary === SQLITE_IOERR) {
    // The disk (or the database's page limit) is full, or the file could not be written: the
    // store's state, not the request's; retry once space is freed.
    return new NoemaError('STORE_UNAVAILABLE', `the database cannot be written: ${message}`, {
      retryable: true,
      status: 503,
      details: { errcode },
      cause: err,
    });
  }
  if (primary === SQLITE_TOOBIG) {
    return new NoemaError('INVALID_INPUT', `the store refused a value: ${message}`, {
      status: 400,
      details: { errcode },
      cause: err,
    });
  }
  if (errcode === SQLITE_CONSTRAINT_UNIQUE || errcode === SQLITE_CONSTRAINT_PRIMARYKEY) {
    return new NoemaError('CONFLICT', `a record with the same key already exists: ${message}`, {
      status: 409,
      cause: err,
    });
  }
  if (primary === SQLITE_CONSTRAINT) {
    return new NoemaError('CONSTRAINT_VIOLATION', `a storage constraint was violated: ${message}`, {
      status: 409,
      cause: err,
    });
  }
  return err;
}
