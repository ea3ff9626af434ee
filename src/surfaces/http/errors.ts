/**
 * Maps errors to HTTP statuses and the REST error envelope, and logs server failures: a 5xx once
 * with its request id, and a store outage once per incident (not a stack per request).
 */
import { errorEnvelope, type NoemaError, toNoemaError } from '../../core/errors.ts';

const STATUS_BY_CODE: Record<string, number> = {
  INVALID_INPUT: 400,
  SCHEMA_INVALID: 400,
  INVALID_SCHEMA: 400,
  NOT_CANONICALIZABLE: 400,
  BUDGET_TOO_SMALL: 400,
  UNAUTHORIZED: 401,
  CSRF_INVALID: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  REVISION_MISMATCH: 409,
  INVALID_TRANSITION: 409,
  PAYLOAD_TOO_LARGE: 413,
  STORE_UNAVAILABLE: 503,
};

export function httpStatusOf(err: NoemaError): number {
  return err.status ?? STATUS_BY_CODE[err.code] ?? (err.code.startsWith('UNKNOWN_') ? 404 : 500);
}

export interface ErrorReply {
  status: number;
  error: NoemaError;
  body: ReturnType<typeof errorEnvelope>;
}

export function errorReply(err: unknown, requestId: string, correlationId?: string): ErrorReply {
  const e = toNoemaError(err);
  const ids =
    correlationId === undefined
      ? { request_id: requestId }
      : { request_id: requestId, correlation_id: correlationId };
  return { status: httpStatusOf(e), error: e, body: errorEnvelope(e, ids) };
}

/** Logs what the operator must see; typed client errors (4xx) are the caller's and stay quiet. */
export class FailureLog {
  #storeDown = false;
  readonly #malformedKinds = new Set<string>();
  readonly #write: (line: string, err?: unknown) => void;

  constructor(
    write: (line: string, err?: unknown) => void = (line, err) => console.error(line, ...(err ? [err] : [])),
  ) {
    this.#write = write;
  }

  failed(reply: ErrorReply, method: string, path: string, requestId: string): void {
    if (reply.error.code === 'STORE_UNAVAILABLE') {
      if (this.#storeDown) return;
      this.#storeDown = true;
      this.#write(
        `noema: the store is unavailable (first seen on ${method} ${path}, request ${requestId}): ${reply.error.message}`,
      );
      return;
    }
    if (reply.status >= 500)
      this.#write(
        `noema: ${method} ${path} failed (request ${requestId}):`,
        reply.error.cause ?? reply.error,
      );
  }

  /**
   * A request too malformed to reach the app (a backslash in its path, a bad Host, an absolute-form
   * target of another scheme, unparsable HTTP): one line the first time each kind is seen.
   */
  malformed(kind: string): void {
    if (this.#malformedKinds.has(kind)) return;
    this.#malformedKinds.add(kind);
    this.#write(`noema: refused a malformed request (${kind}); later ones of this kind are not logged`);
  }

  /** A request that reached the store succeeded: a later outage is a new incident. */
  storeAnswered(): void {
    if (!this.#storeDown) return;
    this.#storeDown = false;
    this.#write('noema: the store answers again');
  }
}

const DISCONNECT_CODES = new Set([
  'ECONNRESET',
  'EPIPE',
  'ECONNABORTED',
  'ERR_STREAM_PREMATURE_CLOSE',
  'ABORT_ERR',
]);

/** True for errors that only mean the client went away. */
export function isClientDisconnect(err: unknown): boolean {
  const e = err as { code?: string; name?: string } | null;
  return !!e && (DISCONNECT_CODES.has(e.code ?? '') || e.name === 'AbortError');
}
