// The one root error class for Noema, its stable codes, and the REST error envelope.
// Every error that crosses a module or process boundary is a NoemaError so callers can branch on `code`.

/**
 * Every stable error code Noema raises, grouped by the layer that owns it. A code is part of the
 * public contract (REST envelopes, MCP tool errors, CLI exit codes, ExecutionContract failures):
 * callers branch on it, so it never changes meaning.
 *
 * Adding a code is a one-line edit: append it to its layer's list below (runtimes use
 * `RUNTIME_CODES`). `NoemaError`'s constructor accepts only these, so the compiler finds every
 * ad-hoc literal, and `errors.test.ts` checks that each code named in `src/` is listed here.
 */

/** Any layer: malformed input, missing things, state conflicts, the catch-all. */
const COMMON_CODES = [
  'INVALID_INPUT',
  'NOT_FOUND',
  'CONFLICT',
  'INVALID_TRANSITION',
  'REVISION_MISMATCH',
  'BUDGET_TOO_SMALL',
  'INTERNAL',
] as const;

/** core: canonical JSON and the JSON Schema registry. */
const CORE_CODES = [
  'SCHEMA_INVALID',
  'INVALID_SCHEMA',
  'NOT_CANONICALIZABLE',
  'UNKNOWN_JSON_SCHEMA',
] as const;

/** store and app: the database and the process configuration. */
const STORE_CODES = [
  'CONFIG_INVALID',
  'STORE_UNAVAILABLE',
  'STORE_BUSY',
  'STORE_CLOSED',
  'NESTED_TRANSACTION',
  'CONSTRAINT_VIOLATION',
  'SCHEMA_TOO_NEW',
] as const;

/** sources: definitions, invocations and their failure classes (see `sources/failure.ts`). */
const SOURCE_CODES = [
  'UNKNOWN_RESPONSE_SOURCE',
  'UNKNOWN_SOURCE_INTERFACE',
  'UNKNOWN_SOURCE_INVOCATION',
  'UNKNOWN_LLM_CALL',
  'LLM_TRACE_CORRUPT',
  'UNKNOWN_MCP_SERVER',
  'SOURCE_FAILED',
  'SOURCE_NOT_CONFIGURED',
  'SOURCE_TIMEOUT',
  'SOURCE_CANCELLED',
  'SOURCE_SCHEMA_INVALID',
  'SOURCE_RESPONSE_FORMAT_REJECTED',
  'SOURCE_INTERRUPTED',
  'UPSTREAM_UNAVAILABLE',
] as const;

/** memory: reasoning memory (branches, docs, graph, think) and tasks. */
const MEMORY_CODES = [
  'UNKNOWN_WORKSPACE',
  'UNKNOWN_BRANCH',
  'UNKNOWN_TARGET',
  'UNKNOWN_STEP',
  'UNKNOWN_TYPE',
  'UNKNOWN_CONFLICT',
  'BRANCH_EXISTS',
  'BRANCH_TOO_DEEP',
  'DIVERGENCE_TOO_LARGE',
  'GRAPH_INVALID',
  'MERGE_NOT_SUPPORTED',
] as const;

/** engine: runs, contracts, the journal; also the `code` of a run's `RunError`. */
const ENGINE_CODES = [
  'UNKNOWN_RUN',
  'UNKNOWN_CONTRACT',
  'UNKNOWN_NODE_TYPE',
  'UNKNOWN_CHANNEL',
  'JOURNAL_FULL',
  'JOURNAL_CORRUPT',
  'LEASE_LOST',
  'NODE_FAILED',
  'GENERATION_FAILED',
  'DEAD_END',
  'STEP_LIMIT',
  'ROUTE_UNKNOWN',
  'SUSPEND_INVALID',
  'NO_ACTION_EXECUTOR',
  'ACTION_INTERRUPTED',
  'ACTION_FAILED',
  'UNKNOWN_GRAPH',
] as const;

/** runtimes (agent, flow, world): append yours here. */
const RUNTIME_CODES = [
  // worlds (seed 004)
  'AMBIENT_SOURCE_FAILED',
  'AMBIENT_TEMPLATE_PATH_MISSING',
  'ATTEMPT_IN_PROGRESS',
  'ATTEMPT_NOT_COMMITTABLE',
  'BUNDLE_INVALID',
  'MAX_TOOL_CALLS_EXHAUSTED',
  'OBSOLETE_PROFILE_SHAPE',
  'SCENARIO_INVALID',
  'TOOL_CALL_MISSING',
  'UNKNOWN_ATTEMPT',
  'UNKNOWN_REFERENCE',
  'UNKNOWN_SCENARIO',
  'UNKNOWN_TURN',
  'UNKNOWN_WORLD',
  'WORLD_EXISTS',
  // agent sessions (seeds 000 + 002)
  'ECS_NO_FORM',
  'ECS_NO_RESPONSE',
  'MODEL_CALL_FAILED',
  'NO_CHECKPOINT',
  'PROFILE_CONFLICT',
  'PROFILE_NOT_SAVED',
  'REASONING_MEMORY_UNAVAILABLE',
  'SESSION_BUSY',
  'UNKNOWN_AGENT',
  'UNKNOWN_AGENT_GRAPH',
  'UNKNOWN_SESSION',
  'UNKNOWN_USER_PROFILE',
  // flowcharts (seed 003)
  'FALLBACK_FAILED',
  'FLOWCHART_CONFIG_MALFORMED',
  'FLOWCHART_INVALID',
  'FLOW_LLM_FAILED',
  'MEMORY_MCP_BINDING_INVALID',
  'MEMORY_NOTHING_TO_STORE',
  'PLAN_AMBIGUOUS_MATCH',
  'PLAN_PATCH_INVALID',
  'PLAN_PATCH_MISSING',
  'TOOL_FAILED',
  'UNKNOWN_COMPONENT',
  'UNKNOWN_COGNITION_WORKFLOW',
  'UNKNOWN_COGNITION_PROFILE',
  'UNKNOWN_ENVIRONMENT',
  'UNKNOWN_ENTITY',
  'UNKNOWN_ARTIFACT',
  'UNKNOWN_FLOWCHART',
  'UNKNOWN_FLOWCHART_RUN',
  'UNKNOWN_MEMORY',
  'UNKNOWN_MILESTONE',
  'UNKNOWN_NOTE',
  'UNKNOWN_PLAN',
] as const;

/** surfaces: HTTP, MCP and the CLI. */
const SURFACE_CODES = [
  'UNAUTHORIZED',
  'METHOD_NOT_ALLOWED',
  'PAYLOAD_TOO_LARGE',
  'UNKNOWN_TOOL',
  'UNKNOWN_CATALOG',
  'USAGE',
  'CSRF_INVALID',
  'DEMO_STEP_FAILED',
] as const;

/** Every code, for checks and documentation. */
export const ERROR_CODES: readonly ErrorCode[] = [
  ...COMMON_CODES,
  ...CORE_CODES,
  ...STORE_CODES,
  ...SOURCE_CODES,
  ...MEMORY_CODES,
  ...ENGINE_CODES,
  ...RUNTIME_CODES,
  ...SURFACE_CODES,
];

/** A stable error code: the union of every layer's list above. */
export type ErrorCode =
  | (typeof COMMON_CODES)[number]
  | (typeof CORE_CODES)[number]
  | (typeof STORE_CODES)[number]
  | (typeof SOURCE_CODES)[number]
  | (typeof MEMORY_CODES)[number]
  | (typeof ENGINE_CODES)[number]
  | (typeof RUNTIME_CODES)[number]
  | (typeof SURFACE_CODES)[number];

/** The shared codes by name, for call sites that prefer `ErrorCode.INVALID_INPUT` to a literal. */
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
} as const satisfies Record<string, ErrorCode>;

/** True when `code` is one of `ERROR_CODES` (for values that crossed a process boundary). */
export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && (ERROR_CODES as readonly string[]).includes(code);
}

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
  code: ErrorCode;
  message: string;
  details: Record<string, unknown>;
  hint?: string;
  retryable: boolean;
}

/** The REST error body. */
export interface ErrorEnvelope {
  code: ErrorCode;
  message: string;
  details: Record<string, unknown>;
  /** True when the same request may succeed later unchanged (the store was busy or down). */
  retryable: boolean;
  request_id: string;
  correlation_id?: string;
  hint?: string;
}

/** Root error: a stable `code`, serializable `details`, an optional recovery `hint`. */
export class NoemaError extends Error {
  override name = 'NoemaError';
  readonly code: ErrorCode;
  readonly details: Record<string, unknown>;
  readonly hint?: string;
  readonly retryable: boolean;
  readonly status?: number;

  constructor(code: ErrorCode, message: string, options: NoemaErrorOptions = {}) {
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
    retryable: e.retryable,
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
