/**
 * The process's telemetry hooks: what the engine and the sources tell an observer (traces, metrics)
 * about runs, node executions and source invocations. None is installed by default, and every
 * call site reads `telemetry()` once and does nothing more when it is null, so an unobserved
 * process pays one property read per event. The OpenTelemetry and Prometheus observers live in
 * `src/observability/`; the composition root installs them.
 */

/** A run's row was committed (`engine.createRun`). */
export interface RunCreated {
  run_id: string;
  created_at: number;
  /** Its graph's nodes (their types tell a world turn from a flowchart run; a flowchart's name it). */
  nodes: readonly { type: string; config?: unknown }[];
  /** Its initial channel writes, where runtimes put the ids of their records (session, attempt). */
  input: Readonly<Record<string, unknown>>;
}

/** An engine event as the engine emits it in this process (commit events after their commit). */
export interface EngineEventSeen {
  type: string;
  run_id: string;
  at: number;
  [field: string]: unknown;
}

/** Where an invocation sits in a run (the invocation's links). */
export interface InvocationScope {
  source_invocation_id: string;
  run_id: string | null;
  /** The invocation's node in the run, when its caller said. */
  node_id: string | null;
}

/** A source invocation whose finished row is committed (or whose recording failed). */
export interface InvocationFinished extends InvocationScope {
  interface_name: string;
  invocation_kind: string;
  status: 'succeeded' | 'failed' | 'interrupted';
  failure_class: string | null;
  /** The running row's `started_at`: the call started no earlier than its record was durable. */
  started_at: number;
  ended_at: number;
  links: Readonly<Record<string, unknown>>;
  metadata: Readonly<Record<string, unknown>>;
  /** The kind's own trace columns of the row (LLM: `llm_model`, `llm_prompt_tokens`, …), by name. */
  columns: Readonly<Record<string, unknown>>;
  /** The request and response as the durable trace records them (redacted); computed when called. */
  content(): { request: unknown; response: unknown };
}

export interface Telemetry {
  /**
   * Statements to commit in the transaction that creates the run (the trace context an incoming
   * `traceparent` started it under), so whichever process resumes the run finds them with it —
   * written in the caller's transaction when the run is created in one.
   */
  runRows?(run: RunCreated): ReadonlyArray<{ sql: string; params: unknown[] }>;
  /** A run's creation committed (or was made part of the caller's transaction). */
  runCreated?(run: RunCreated): void;
  engineEvent?(event: EngineEventSeen): void;
  /**
   * The event types `engineEvent` wants (absent: every type). The engine builds an event for the
   * hooks only when its type is wanted (or someone else observes the run), so an observer of a few
   * types does not pay for the many progress and contract events of a run.
   */
  engineEventTypes?: ReadonlySet<string>;
  invocationFinished?(inv: InvocationFinished): void;
  /** Runs an invocation's transport call (`fn`) so `outgoingTraceparent` knows which call it is. */
  aroundCall?<T>(scope: InvocationScope, fn: () => T): T;
  /** The `traceparent` header for the outgoing request of the call running now, if any. */
  outgoingTraceparent?(): string | undefined;
  /** A store's COMMIT took `seconds` (the statement alone, not the transaction's work). */
  storeCommit?(seconds: number): void;
}

let installed: Telemetry | null = null;

/** The installed hooks, or null (the default). */
export function telemetry(): Telemetry | null {
  return installed;
}

/** Installs hooks (replacing any); `null` uninstalls. Returns the previous ones. */
export function installTelemetry(hooks: Telemetry | null): Telemetry | null {
  const previous = installed;
  installed = hooks;
  return previous;
}

/** Whether `hooks` want engine events of `type`. */
export function wantsEngineEvent(hooks: Telemetry | null, type: string): boolean {
  if (hooks?.engineEvent === undefined) return false;
  const types = hooks.engineEventTypes;
  return types === undefined || types.has(type);
}
