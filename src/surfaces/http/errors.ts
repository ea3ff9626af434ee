/** Maps errors to HTTP statuses and the REST error envelope. */
import { errorEnvelope, type NoemaError, toNoemaError } from '../../core/errors.ts';

const STATUS_BY_CODE: Record<string, number> = {
  INVALID_INPUT: 400,
  SCHEMA_INVALID: 400,
  INVALID_SCHEMA: 400,
  NOT_CANONICALIZABLE: 400,
  BUDGET_TOO_SMALL: 400,
  UNAUTHORIZED: 401,
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

export function errorReply(err: unknown, requestId: string): { status: number; body: unknown } {
  const e = toNoemaError(err);
  return { status: httpStatusOf(e), body: errorEnvelope(e, { request_id: requestId }) };
}
