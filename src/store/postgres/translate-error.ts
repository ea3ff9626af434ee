/** Maps pg errors to typed NoemaErrors, so both backends fail with the same codes. */
import { NoemaError } from '../../core/errors.ts';
import { writeInReadTransaction } from '../failed-statement.ts';

/** SQLSTATE read_only_sql_transaction: a write inside `BEGIN READ ONLY` (`mode: 'read'`). */
const READ_ONLY_TRANSACTION = '25006';

const UNAVAILABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  // A statement written to a socket the server had closed (its session terminated, as on a restart).
  'EPIPE',
  'ECONNABORTED',
  'ETIMEDOUT',
  '57P01',
  '57P02',
  // The database was dropped under a running server: it is gone, not the request's fault.
  '3D000',
  '57P03',
  '08000',
  '08001',
  '08003',
  '08006',
]);
// 57014: a statement cancelled by statement_timeout (or an operator's pg_cancel_backend).
const BUSY = new Set(['40001', '40P01', '55P03', '57014']);

export function translatePostgresError(err: unknown): unknown {
  if (err instanceof NoemaError) return err;
  const code = (err as { code?: unknown }).code;
  const message = (err as Error)?.message ?? String(err);
  if (typeof code !== 'string') {
    if (/Cannot use a pool after calling end|Client was closed/i.test(message)) {
      return new NoemaError('STORE_CLOSED', 'the store is closed', { cause: err });
    }
    // "not queryable": a statement on a connection the server ended while a transaction held it.
    if (/Connection terminated|timeout exceeded when trying to connect|is not queryable/i.test(message)) {
      return new NoemaError('STORE_UNAVAILABLE', `PostgreSQL is unreachable: ${message}`, {
        retryable: true,
        cause: err,
      });
    }
    return err;
  }
  if (UNAVAILABLE.has(code)) {
    return new NoemaError('STORE_UNAVAILABLE', `PostgreSQL is unreachable: ${message}`, {
      retryable: true,
      status: 503,
      cause: err,
    });
  }
  if (code.startsWith('53')) {
    // Class 53 "insufficient resources": disk full, out of memory, too many connections. The
    // server's state, not the request's: retry once an operator (or time) frees the resource.
    return new NoemaError('STORE_UNAVAILABLE', `PostgreSQL is out of resources: ${message}`, {
      retryable: true,
      status: 503,
      details: { sqlstate: code },
      cause: err,
    });
  }
  if (BUSY.has(code)) {
    return new NoemaError('STORE_BUSY', `the database is busy: ${message}`, {
      retryable: true,
      status: 503,
      hint: 'a concurrent transaction conflicted (deadlock, serialization or lock timeout); retry',
      cause: err,
    });
  }
  if (code === READ_ONLY_TRANSACTION) return writeInReadTransaction(err);
  if (code === '23505') {
    return new NoemaError('CONFLICT', `a record with the same key already exists: ${message}`, {
      status: 409,
      cause: err,
    });
  }
  if (code.startsWith('22') || code.startsWith('54')) {
    // Class 22 "data exception": a value the database refuses (bad encoding, out of range,
    // invalid text for a type); class 54 "program limit exceeded": a value too large for the
    // store (an index row over its size limit). It is the caller's input, never a server fault.
    return new NoemaError('INVALID_INPUT', `the store refused a value: ${message}`, {
      status: 400,
      details: { sqlstate: code },
      cause: err,
    });
  }
  if (code.startsWith('23')) {
    return new NoemaError('CONSTRAINT_VIOLATION', `a storage constraint was violated: ${message}`, {
      status: 409,
      cause: err,
    });
  }
  return err;
}
