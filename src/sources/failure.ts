/**
 * SourceFailure: the one error a source implementation throws for an expected failure. It
 * carries the failure class recorded on the invocation and whatever response was seen, so an
 * HTTP 500 keeps its body and a timeout keeps the chunks already streamed.
 */
import { type ErrorCode, NoemaError } from '../core/errors.ts';
import type { FailureClass, SourceResponse } from './source.ts';

/** The NoemaError code of each failure class: what callers branch on without reading the class. */
const CODE_BY_CLASS: Record<FailureClass, ErrorCode> = {
  not_configured: 'SOURCE_NOT_CONFIGURED',
  network: 'SOURCE_FAILED',
  timeout: 'SOURCE_TIMEOUT',
  cancelled: 'SOURCE_CANCELLED',
  http_status: 'SOURCE_FAILED',
  non_json: 'SOURCE_FAILED',
  schema_invalid: 'SOURCE_SCHEMA_INVALID',
  response_format_rejected: 'SOURCE_RESPONSE_FORMAT_REJECTED',
  protocol: 'SOURCE_FAILED',
  tool_error: 'SOURCE_FAILED',
  upstream_error: 'SOURCE_FAILED',
  truncated: 'SOURCE_FAILED',
  rate_limited: 'SOURCE_FAILED',
  context_length_exceeded: 'SOURCE_FAILED',
  content_filter: 'SOURCE_FAILED',
  refusal: 'SOURCE_FAILED',
  auth: 'SOURCE_FAILED',
  model_not_found: 'SOURCE_FAILED',
  interrupted: 'SOURCE_INTERRUPTED',
  internal: 'SOURCE_FAILED',
};

/**
 * Which failures are worth another try, and how (docs/sources.md, "Which failures are retried"):
 * `same` — the same request again, the wire or the other side may do better next time (a
 * `rate_limited` one no sooner than its `details.retry_after_ms`); `corrected` — a new generation
 * with a corrective message saying what was wrong with the reply (`correctiveFor`); `no` — the same
 * request would fail the same way (configuration, the prompt, the provider's policy).
 */
export const RETRY_BY_CLASS: Record<FailureClass, 'same' | 'corrected' | 'no'> = {
  not_configured: 'no',
  network: 'same',
  timeout: 'same',
  cancelled: 'no',
  http_status: 'same',
  non_json: 'corrected',
  schema_invalid: 'corrected',
  response_format_rejected: 'no',
  protocol: 'no',
  tool_error: 'no',
  upstream_error: 'no',
  truncated: 'corrected',
  rate_limited: 'same',
  context_length_exceeded: 'no',
  content_filter: 'no',
  refusal: 'no',
  auth: 'no',
  model_not_found: 'no',
  interrupted: 'no',
  internal: 'no',
};

/** Classes worth retrying unchanged: the `same` ones of RETRY_BY_CLASS. */
const RETRYABLE: ReadonlySet<FailureClass> = new Set(
  (Object.keys(RETRY_BY_CLASS) as FailureClass[]).filter((c) => RETRY_BY_CLASS[c] === 'same'),
);

/**
 * The corrective message for a failure whose retry is `corrected`: what the next generation is told
 * about the reply that failed (a cut-off reply says it was cut off at N tokens, not that it was
 * not JSON). Null for the other classes.
 */
export function correctiveFor(failure: { failure_class: FailureClass; message: string }): string | null {
  if (RETRY_BY_CLASS[failure.failure_class] !== 'corrected') return null;
  if (failure.failure_class === 'truncated') {
    return `Your previous reply ${failure.message.replace(/^the model's reply /, '')}. Reply again, shorter: exactly one complete JSON value.`;
  }
  return `Your previous reply was rejected (${failure.message}). Reply with exactly one JSON value that matches the schema.`;
}

export class SourceFailure extends NoemaError {
  readonly failureClass: FailureClass;
  readonly response: SourceResponse;

  constructor(
    failureClass: FailureClass,
    message: string,
    options: {
      response?: SourceResponse;
      hint?: string;
      retryable?: boolean;
      details?: Record<string, unknown>;
    } = {},
  ) {
    super(CODE_BY_CLASS[failureClass], message, {
      details: { failure_class: failureClass, ...options.details },
      retryable: options.retryable ?? RETRYABLE.has(failureClass),
      ...(options.hint !== undefined ? { hint: options.hint } : {}),
    });
    this.failureClass = failureClass;
    this.response = options.response ?? {};
  }
}

export function isSourceFailure(e: unknown): e is SourceFailure {
  return e instanceof SourceFailure;
}

/** A missing environment variable the source needs: a clear `SOURCE_NOT_CONFIGURED`. */
export function notConfigured(variable: string, what: string): SourceFailure {
  return new SourceFailure('not_configured', `${what}: environment variable ${variable} is not set`, {
    details: { variable },
    hint: `set ${variable} in the environment of the Noema process`,
  });
}

/**
 * Maps an abort to its failure class: our deadline is `timeout`, the caller's signal is
 * `cancelled`, anything else thrown by fetch is `network`.
 */
export function transportFailure(
  err: unknown,
  ctx: { timedOut: boolean; cancelled: boolean; what: string; response?: SourceResponse },
): SourceFailure {
  if (err instanceof SourceFailure) return err;
  const base = ctx.response ? { response: ctx.response } : {};
  if (ctx.timedOut) return new SourceFailure('timeout', `${ctx.what} timed out`, base);
  if (ctx.cancelled) return new SourceFailure('cancelled', `${ctx.what} was cancelled`, base);
  // node:http errors carry their code; fetch's wrapped it in a cause.
  const e = err as { message?: string; code?: string; cause?: { code?: string; message?: string } };
  const why = e.code ?? e.cause?.code ?? e.cause?.message ?? e.message ?? String(err);
  return new SourceFailure('network', `${ctx.what} failed: ${why}`, base);
}
