/**
 * The ResponseSource contract: how Noema reaches anything outside itself (an LLM, an HTTP JSON
 * service, an MCP tool). Implementations live in `llm/`, `http-json/` and `mcp-tool/`; callers
 * use only `invokeSource` (`invoke.ts`), which wraps every call in a durable `source_invocations`
 * row. This file is the contract; read it before adding a kind.
 */
import type { JsonSchema } from '../core/schema-registry.ts';
import type { Queryable, SqlValue } from '../store/store.ts';
import type { Redactor } from './redact.ts';

/**
 * A stored source definition (seed 004 "Response source"): content-addressed by the sha256 of
 * its canonical JSON. `interface.name` selects the implementation from the registry. Transport
 * secrets and base URLs never live here: they come from the operator's environment.
 */
export interface ResponseSourceDocument {
  version: 1;
  label?: string;
  /**
   * `false`: this source's outgoing requests carry no W3C `traceparent` header even when tracing is
   * on (docs/observability.md). Default true.
   */
  trace_context?: boolean;
  interface: SourceInterface;
}

/** The part of a source definition the implementation reads. `name` is the registry key. */
export interface SourceInterface {
  name: string;
  [field: string]: unknown;
}

/** A definition as stored: the document and its content address. */
export interface StoredResponseSource {
  hash: string;
  content: ResponseSourceDocument;
}

/**
 * Why an invocation happened. Seed 004 names the first three; the agent and flowchart
 * runtimes add theirs. The column is TEXT so a new runtime adds a kind without a migration.
 */
export const INVOCATION_KINDS = [
  'llm_generation',
  'ambient_context',
  'model_elected_tool',
  'agent_tool_call',
  'flow_node',
  'manual',
] as const;

export type InvocationKind = (typeof INVOCATION_KINDS)[number];

export type InvocationStatus = 'running' | 'succeeded' | 'failed' | 'interrupted';

/**
 * Stable failure classes recorded in `source_invocations.failure_class`, the ones callers
 * branch on. A new class is a one-line edit here plus its code in `failure.ts`'s table.
 */
export type FailureClass =
  | 'not_configured'
  | 'network'
  | 'timeout'
  | 'cancelled'
  | 'http_status'
  | 'non_json'
  | 'schema_invalid'
  | 'response_format_rejected'
  | 'protocol'
  | 'tool_error'
  | 'upstream_error'
  | 'truncated'
  | 'rate_limited'
  | 'context_length_exceeded'
  | 'content_filter'
  | 'refusal'
  | 'auth'
  | 'model_not_found'
  | 'interrupted'
  | 'internal';

/**
 * Where an invocation sits in the caller's work. Every field is optional and nullable; the
 * names are seed 004's where it has them. `invocation_seq` is allocated per attempt (or per
 * run when there is no attempt) unless the caller supplies it.
 */
export interface InvocationLinks {
  run_id?: string | null;
  attempt_id?: string | null;
  contract_id?: string | null;
  world_slug?: string | null;
  attempted_turn?: number | null;
  invocation_seq?: number | null;
  workflow_hash?: string | null;
  workflow_node_id?: string | null;
  workflow_subject_entity_id?: string | null;
  ambient_source_id?: string | null;
  tool_name?: string | null;
  parent_source_invocation_id?: string | null;
  logical_generation_attempt?: number | null;
  tool_loop_round?: number | null;
  metadata?: Record<string, unknown>;
}

/** What a caller hands `invokeSource`. */
export interface SourceCall {
  source: StoredResponseSource;
  /** The JSON request: a chat request for LLMs, the body for HTTP JSON, the arguments for MCP tools. */
  request: unknown;
  kind: InvocationKind;
  links?: InvocationLinks;
  /** Validates the request before anything is recorded (`input_schema_hash`). */
  inputSchema?: { hash: string; schema: JsonSchema } | null;
  /**
   * Validates the JSON result (`output_schema_hash`); LLM sources also deliver it to the model.
   * `schema` must be the schema stored under `hash` as `getJsonSchema` and `putJsonSchema` return
   * it: the LLM trace stores the schema it sent only by that hash and reads it back from there.
   */
  resultSchema?: { hash: string; schema: JsonSchema } | null;
  /** Cancels the call; the invocation fails with `cancelled`. */
  signal?: AbortSignal;
  /** Overrides the source's own `timeout_ms`. */
  timeoutMs?: number;
  /** The operator configuration to read (URLs, keys); defaults to `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Observes the reply as it streams: each new piece of an LLM's assistant text (LLM sources only). */
  onChunk?: (text: string) => void;
  /**
   * Names the call's `model_output_kind` from its result, written with the finished row (no write of
   * its own): `output` as validated, before redaction; `null` leaves the column unset. Not called
   * when the call never finished (recovery interrupted it); a throw leaves the column unset.
   */
  outputKind?: (
    result: { ok: true; output: unknown } | { ok: false; failure_class: FailureClass },
  ) => string | null;
}

/** What an implementation learns about the call it is planning. */
export interface PlanInput {
  iface: SourceInterface;
  /** For reading referenced documents (e.g. an MCP server config); never for writing. */
  store: Queryable;
  request: unknown;
  kind: InvocationKind;
  links: InvocationLinks;
  resultSchema: { hash: string; schema: JsonSchema } | null;
  env: Readonly<Record<string, string | undefined>>;
  timeoutMs: number | undefined;
  /** The caller's stream observer (`SourceCall.onChunk`). */
  onChunk?: (text: string) => void;
  /**
   * The id the invocation will be recorded under (absent when a plan is made without recording
   * it). The LLM source uses it as its `llm_call_id`: the trace is a part of the invocation row.
   */
  source_invocation_id?: string;
}

/**
 * A kind's own columns on the invocation row, named once per kind (a module constant): the
 * statements that write them are prepared once per list.
 */
export interface TraceColumns {
  readonly names: readonly string[];
}

/** Names a kind's trace columns (call once, at module level). */
export function traceColumns(...names: string[]): TraceColumns {
  for (const n of names) if (!/^[a-z][a-z0-9_]*$/.test(n)) throw new Error(`bad trace column name ${n}`);
  return Object.freeze({ names: Object.freeze(names) });
}

/** Values for a kind's trace columns, in the order of `columns.names`. */
export interface TraceValues {
  columns: TraceColumns;
  values: SqlValue[];
}

/** One statement a kind adds to a transaction of the invocation. */
export interface TraceStatement {
  sql: string;
  params: SqlValue[];
}

/** Ids known when the running row is written. */
export interface BeginContext {
  source_invocation_id: string;
  started_at: number;
  redactor: Redactor;
}

/** What the transport returned, recorded on the invocation whether it succeeded or not. */
export interface SourceResponse {
  response_json?: unknown;
  response_text?: string | null;
  response_headers?: Record<string, string>;
  http_status?: number | null;
  model_output_kind?: string | null;
}

/** A successful transport call: the JSON output handed back to the caller, and what was seen. */
export interface SourceSuccess extends SourceResponse {
  output: unknown;
}

/** Handed to `execute`: the call's abort signal and why it fired. */
export interface ExecuteContext {
  signal: AbortSignal;
  source_invocation_id: string;
  /** True once the deadline fired (the failure class is `timeout`). */
  timedOut(): boolean;
  /** True once the caller's signal fired (the failure class is `cancelled`). */
  cancelled(): boolean;
  /**
   * Something worth keeping arrived (a streamed chunk): `invokeSource` runs the plan's
   * `progress` hook within `PROGRESS_INTERVAL_MS`, batching everything that arrives meanwhile.
   * `final`: the answer is complete (its finish event arrived); a call that already wrote a batch
   * writes this one at once, so a crash before the finish still leaves the whole answer on record.
   */
  progressed(final?: boolean): void;
}

/**
 * What the finished invocation row holds of the response, as stored (redacted), so the kind's
 * own rows can refer to it instead of storing the same output again.
 */
export interface RecordedResponse {
  response_text: string | null;
  /** The response JSON was stored (`response_json` is not NULL). */
  has_response_json: boolean;
  /** The response JSON needed no redaction: what was stored is the value itself. */
  response_json_clean: boolean;
  /** `response_headers` as stored (redacted JSON text). */
  response_headers: string;
  /**
   * The values the row was written from, before redaction (in memory only): a kind's row holding
   * the very same value stores the reference without redacting and encoding it a second time.
   */
  from: { response_text: string | null; response_headers: Record<string, string> | undefined };
}

/** How the invocation ended, as the implementation's `finish` hook sees it. */
export interface FinishContext {
  status: 'succeeded' | 'failed';
  ended_at: number;
  failure: { failure_class: FailureClass; message: string } | null;
  output: unknown;
  validation: { status: 'valid' | 'invalid' | 'not_checked'; errors: unknown[] };
  redactor: Redactor;
  /**
   * What the invocation row's own columns are finished with, in the same statement as the
   * kind's: the kind's columns refer to these values instead of storing them again.
   */
  recorded: RecordedResponse;
}

/**
 * One planned call. `plan` builds it without I/O; `invokeSource` then writes the `running`
 * row (with the columns `begin` returns), calls `execute`, and writes the outcome (with the
 * columns `finish` returns, in the same statement).
 */
export interface SourcePlan {
  /** Recorded as `source_invocations.request_json` (redacted before writing). */
  request_json: unknown;
  metadata?: Record<string, unknown>;
  /** Set when this kind keeps a rich trace on the invocation row (LLM: the `llm_calls` view). */
  llm_call_id?: string;
  /** The deadline for `execute` unless the caller overrides it; none when undefined. */
  timeout_ms?: number;
  /** Configured secret values this call uses; redacted from every record. */
  secrets?: readonly string[];
  /** This kind's own columns of the running row, written by the statement that inserts it. */
  begin?(ctx: BeginContext): TraceValues;
  /** Performs the I/O. Throws `SourceFailure` for every expected failure. */
  execute(ctx: ExecuteContext): Promise<SourceSuccess>;
  /**
   * Writes what arrived since its last run (streamed chunks), in a transaction of its own while
   * `execute` runs, so a killed process leaves it in the store. Never called concurrently with
   * itself or after `execute` settled; a failure here is logged and does not fail the call.
   */
  progress?(q: Queryable, redactor: Redactor): Promise<void>;
  /** This kind's own columns of the finished row, written by the statement that finishes it. */
  finish?(ctx: FinishContext): TraceValues;
  /**
   * A statement to run once the row is finished, in that same transaction (LLM: dropping the
   * chunk batches the finish wrote whole), or null when there is nothing to do.
   */
  afterFinish?(): TraceStatement | null;
}

/** An implementation of one `interface.name`. Register it in `registry.ts`. */
export interface ResponseSource {
  readonly name: string;
  /** JSON Schema of this kind's `interface` object; checked when a definition is stored. */
  readonly interfaceSchema: JsonSchema;
  /**
   * Plans one call without network I/O (reading referenced documents is fine). Throws `SourceFailure` (e.g. `not_configured`) to fail the
   * invocation after recording it, or a NoemaError INVALID_INPUT to refuse before recording.
   */
  plan(input: PlanInput): SourcePlan | Promise<SourcePlan>;
  /** Checks that documents the interface references exist; throws INVALID_INPUT. */
  checkReferences?(q: Queryable, iface: SourceInterface): Promise<void>;
}
