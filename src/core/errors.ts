// The one root error class for Noema, its stable codes, and the REST error envelope.
// Every error that crosses a module or process boundary is a NoemaError so callers can branch on `code`.

/** Shared stable error codes. Modules may define their own UPPER_SNAKE codes as plain strings. */
export const ErrorCode = {
  INVALID_INPUT: 'INVALID_INPUT',
  NOT_FOUND: 'NOT_FOUND',
  CONFLICT: 'CONFLICT',
  INVALID_TRANSITION: 'INVALID_TRANSITION',
  /** A value does not match a schema. */
  SCHEMA_INVALID: 'SCHEMA_INVALID',
  /** The schema itself is malformed or conflicts with another. */
  INVALID_SCHEMA: 'INVALID_SCHEMA',
  NOT_CANONICALIZABLE: 'NOT_CANONICALIZABLE',
  CONFIG_INVALID: 'CONFIG_INVALID',
  STORE_UNAVAILABLE: 'STORE_UNAVAILABLE',
  SCHEMA_TOO_NEW: 'SCHEMA_TOO_NEW',
  UNAUTHORIZED: 'UNAUTHORIZED',
  BUDGET_TOO_SMALL: 'BUDGET_TOO_SMALL',
  REVISION_MISMATCH: 'REVISION_MISMATCH',
  INTERNAL: 'INTERNAL',
} as const;

export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/** Options accepted by the NoemaError constructor besides code and message. */
export interface NoemaErrorOptions {
  /** Serializable facts about the failure (paths, ids, limits). */
  details?: Record<string, unknown>;
  /** A recovery hint addressed to the caller (human or agent). */
  hint?: string;
  /** True when retrying the same operation unchanged may succeed. Defaults to false. */
  retryable?: boolean;
  /** Suggested HTTP status for REST surfaces. */
  status?: number;
  cause?: unknown;
}

/** The serialized form of a NoemaError (what `toJSON` returns). */
export interface NoemaErrorJson {
  code: string;
  message: string;
  details: Record<string, unknown>;
  hint?: string;
  retryable: boolean;
}

/** The REST error body. */
export interface ErrorEnvelope {
  code: string;
  message: string;
  details: Record<string, unknown>;
  request_id: string;
  correlation_id?: string;
  hint?: string;
}

/** Root error: a stable `code`, serializable `details`, an optional recovery `hint`. */
export class NoemaError extends Error {
  override name = 'NoemaError';
  readonly code: string;
  readonly details: Record<string, unknown>;
  readonly hint?: string;
  readonly retryable: boolean;
  readonly status?: number;

  constructor(code: string, message: string, options: NoemaErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.details = options.details ?? {};
    this.retryable = options.retryable ?? false;
    if (options.hint !== undefined) this.hint = options.hint;
    if (options.status !== undefined) this.status = options.status;
  }

  toJSON(): NoemaErrorJson {
    const json: NoemaErrorJson = {
      code: this.code,
      message: this.message,
      details: this.details,
      retryable: this.retryable,
    };
    if (this.hint !== undefined) json.hint = this.hint;
    return json;
  }
}

/** True when `e` is a NoemaError (also across duplicated module instances, by shape). */
export function isNoemaError(e: unknown): e is NoemaError {
  if (e instanceof NoemaError) return true;
  return (
    e instanceof Error &&
    e.name === 'NoemaError' &&
    typeof (e as { code?: unknown }).code === 'string' &&
    typeof (e as { details?: unknown }).details === 'object'
  );
}

/**
 * Returns `e` if it is already a NoemaError, otherwise wraps it as INTERNAL.
 * The original is kept as `cause` for logs but only its message and name reach `details`,
 * because details are sent to clients and stacks must not leak.
 */
export function toNoemaError(e: unknown): NoemaError {
  if (isNoemaError(e)) return e;
  if (e instanceof Error) {
    return new NoemaError(ErrorCode.INTERNAL, e.message || 'internal error', {
      details: { name: e.name },
      status: 500,
      cause: e,
    });
  }
  return new NoemaError(ErrorCode.INTERNAL, typeof e === 'string' ? e : 'internal error', {
    details: { thrown: typeof e },
    status: 500,
    cause: e,
  });
}

/** Builds the REST error envelope for any thrown value. */
export function errorEnvelope(
  err: unknown,
  ids: { request_id: string; correlation_id?: string },
): ErrorEnvelope {
  const e = toNoemaError(err);
  const env: ErrorEnvelope = {
    code: e.code,
    message: e.message,
    details: e.details,
    request_id: ids.request_id,
  };
  if (ids.correlation_id !== undefined) env.correlation_id = ids.correlation_id;
  if (e.hint !== undefined) env.hint = e.hint;
  return env;
}

/** Convenience factory for INVALID_INPUT (HTTP 400). */
export function invalidInput(message: string, details?: Record<string, unknown>, hint?: string): NoemaError {
  const options: NoemaErrorOptions = { status: 400 };
  if (details !== undefined) options.details = details;
  if (hint !== undefined) options.hint = hint;
  return new NoemaError(ErrorCode.INVALID_INPUT, message, options);
}
