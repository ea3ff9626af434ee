/**
 * The engine contract: graphs of typed nodes, runs with a durable delta journal, ExecutionContracts,
 * suspension as a value, resume from any process, leases, retries and events. Implementations live in
 * `graph/`, `contracts/`, `journal/`, `run/`, `actions/` and `events/`; code above this layer sees only
 * this file (re-exported by `index.ts`). The engine knows no node types: runtimes register them.
 */
import type { ErrorCode } from '../core/errors.ts';
import type { JsonSchema } from '../core/schema-registry.ts';
import type { SqlValue, STORE_BUSY, SyncTransaction, Transaction } from '../store/store.ts';
import type { EngineEventListener, SubscribeOptions } from './events/types.ts';
import type { GraphSpec, Json } from './graph/spec.ts';

// ---------------------------------------------------------------- graph IR: graph/spec.ts

export type {
  ChannelReducer,
  ChannelSpec,
  ConnectorMode,
  ConnectorSpec,
  GraphProblem,
  GraphSpec,
  Json,
  NodeSpec,
} from './graph/spec.ts';
export { TERMINAL } from './graph/spec.ts';

import type { ContractStatus, RunError, RunStatus } from './status.ts';

export type { ContractStatus, RunError, RunStatus } from './status.ts';

// ---------------------------------------------------------------- contracts (seed 000)

export interface ContractTransition {
  /** `null` for the creation of the contract. */
  from: ContractStatus | null;
  to: ContractStatus;
  /** Milliseconds since the epoch. */
  at: number;
  /** Who moved it: `node:<id>`, `engine`, `resume`, `recovery`, `executor`. */
  actor: string;
}

/**
 * Why a contract FAILED, as data: the NoemaError's stable `code`, `message`, `retryable` and
 * `details` (a source failure's `details.failure_class` among them). Branch on `code`.
 */
export interface ContractFailure {
  code: ErrorCode;
  message: string;
  retryable: boolean;
  details: Record<string, unknown>;
}

/** An executable action with a state machine (seed 000). Consumers read `status`, never observation strings. */
export interface ExecutionContract {
  contract_id: string;
  action_type: string;
  status: ContractStatus;
  payload: Json;
  result: Json | null;
  /** The seed's human-readable failure text; `error` carries the same failure as data. */
  error_message: string | null;
  /** Set when the contract FAILED (null otherwise). */
  error: ContractFailure | null;
  transitions: ContractTransition[];
}

/** A contract as read from a run, with the backward-compatible `observation` string (seed 000). */
export interface ContractView extends ExecutionContract {
  node_id: string;
  observation: string | null;
}

// ---------------------------------------------------------------- nodes

export interface UpstreamOutput {
  node_id: string;
  connector_id: string;
  output: Json;
}

export interface UpstreamAttachments {
  node_id: string;
  connector_id: string;
  attachments: Json[];
}

/** What connectors feed a node (names from seed 003). */
export interface InputContext {
  /** Solid predecessors that triggered this execution, with their outputs. */
  upstream_nodes: UpstreamOutput[];
  /** Dotted predecessors' latest outputs (those that have run). */
  context_only_upstream_nodes: UpstreamOutput[];
  /** Dashed predecessors' latest attachments. */
  attachment_only_upstream_nodes: UpstreamAttachments[];
  /** Attachments from solid and dashed predecessors, in connector order. */
  propagated_attachments: Json[];
}

/** One failed generation attempt, handed to the next attempt (seed 004 D13). */
export interface CorrectiveNote {
  attempt: number;
  error: string;
  corrective: string;
}

export interface NodeContext<Config = Json> {
  readonly run_id: string;
  readonly node_id: string;
  readonly node_type: string;
  /** The super-step being executed (1-based). */
  readonly step: number;
  /** 1-based generation attempt. */
  readonly attempt: number;
  readonly config: Config;
  /** Current channel values (read-only; write through the result's `writes`). */
  readonly state: Readonly<Record<string, Json>>;
  readonly input_context: InputContext;
  /** Failures of earlier attempts of this execution, oldest first; empty on the first attempt. */
  readonly corrective_context: readonly CorrectiveNote[];
  /** Contracts of the run not yet finished (`PENDING`, `RUNNING`, `WAITING`). */
  readonly pending_executions: readonly ContractView[];
  /** Contracts of the run that finished (`COMPLETED`, `FAILED`, `CANCELLED`). */
  readonly completed_executions: readonly ContractView[];
  /**
   * Executes a PENDING contract through the engine's ActionExecutor: `PENDING → RUNNING` is durable
   * before the call, `RUNNING → COMPLETED | FAILED` with the result right after. A contract that is
   * already finished is returned as journaled, without calling the executor again.
   */
  perform(contract_id: string): Promise<ContractView>;
  /**
   * Creates and performs an action in one call. Its id is derived from (run, step, node, attempt,
   * `key` or call order), so re-executing the node after a crash replays the journaled result.
   * `acrossAttempts` leaves the attempt out: a later attempt of the same execution (a
   * `retry_generation`) replays the action performed by an earlier one instead of performing it again.
   */
  act(
    action_type: string,
    payload: Json,
    options?: { key?: string; acrossAttempts?: boolean },
  ): Promise<ContractView>;
  /** Emits a `node.updated` event (progress; not journaled). */
  update(data: Json): void;
  /**
   * For what a node records outside the engine before it makes an external call itself (a source
   * invocation's `running` row): commits it in a transaction of the run, after the steps the run
   * carries (`commitsWithNext`), checked against the lease: once the lease is lost, the transaction
   * fails with nothing written (`LEASE_LOST`) and the call is not made. A step may then commit with
   * the next execution's first such record, as with its first action.
   */
  readonly records: RunRecords;
  /**
   * Whether an earlier execution of this step may have recorded something outside the engine (a
   * process that held the run before, or an earlier attempt): true for the first step executed since
   * the run was claimed or resumed (but not on the first claim of a run by the engine that created
   * it: nothing has executed) and for a later attempt; false otherwise, as every record goes through
   * `records`, which commits the steps before it.
   */
  readonly mayRepeat: boolean;
  /** Aborted when the run's lease is lost: stop promptly, the result will be discarded. */
  readonly signal: AbortSignal;
}

/** `NodeContext.records`: the shape of a source invocation's `running` runners (`InvokeOptions`). */
export interface RunRecords {
  /**
   * Commits `write` in one transaction with the steps the run carries, if the lease is still held.
   * `deferred`: for a record that precedes no external call and acknowledges nothing (a node's own
   * writes after its calls): it commits as a step that leaves the run running does, without waiting
   * for the disk (see "Durability and commits" in docs/engine.md).
   */
  running<T>(write: (tx: Transaction) => Promise<T>, options?: { durability?: 'deferred' }): Promise<T>;
  /**
   * `running` without a promise, where the store offers synchronous transactions and the run's
   * events need no turn of the event loop; else `STORE_BUSY`, having written nothing.
   */
  runningSync<T>(write: (tx: SyncTransaction) => T): T | typeof STORE_BUSY;
  /**
   * Leaves statements to commit first in the run's next transaction (the node's next record, an
   * action's move, the step, the run's end), after the steps it carries, instead of a transaction of
   * their own. Each must change nothing when run again (`INSERT … ON CONFLICT DO NOTHING`): one whose
   * commit's answer was lost is run again. For a record that need not be durable before anything the
   * node does next outside the store. `update`: a `node.updated` event's data, emitted when they commit.
   */
  carry(writes: ReadonlyArray<{ sql: string; params: SqlValue[] }>, update?: Json): void;
}

export interface NewContract {
  action_type: string;
  payload: Json;
}

export interface NewArtifact {
  artifact_type: string;
  payload: Json;
}

/** Fields every non-failing result may carry. */
export interface NodeEffects {
  /** Channel writes, combined by each channel's reducer. */
  writes?: Record<string, Json>;
  /** The node's output, visible to successors through `input_context`. */
  output?: Json;
  attachments?: Json[];
  /** Selects outgoing solid connectors by their `route`. */
  route?: string | string[];
  /** New PENDING contracts (they appear in `pending_executions` from the next step). */
  contracts?: NewContract[];
  /** Artifacts persisted with the step (event `artifact.persisted`). */
  artifacts?: NewArtifact[];
  /**
   * The step need not commit on its own (`ok` results that leave the run running): it commits with
   * the run's next transaction — the next execution's first action record (`ctx.act` /
   * `ctx.perform`), or the next step. For a node that knows the next execution writes nothing
   * outside the engine before such a record: a crash before then re-executes this step, as a crash
   * just before its commit would. Every node of a step must say so.
   */
  commitsWithNext?: boolean;
}

/**
 * What a node returns. Suspension and model-content failures are values, never thrown exceptions;
 * a thrown exception fails the run (`NODE_FAILED`).
 */
export type NodeResult =
  | ({ kind: 'ok' } & NodeEffects)
  | ({
      kind: 'suspend';
      /** The WAITING contract; `payload.response_schema` (JSON Schema) validates the resume response. */
      contract: NewContract;
    } & NodeEffects)
  | ({
      kind: 'suspend';
      /**
       * Instead of creating one: a PENDING contract of this run (say, one an earlier node created) that
       * moves `PENDING → WAITING`; its `payload.response_schema` validates the resume response.
       */
      wait_on: string;
    } & NodeEffects)
  | { kind: 'retry_generation'; error: string; corrective: string }
  | { kind: 'fail'; code: ErrorCode; message: string };

/** A node type: a small object registered by a runtime. */
export interface NodeType<Config = Json> {
  type: string;
  description?: string;
  /** JSON Schema for the node's `config` (its authored input); checked by graph validation. */
  inputSchema?: JsonSchema;
  execute(ctx: NodeContext<Config>): Promise<NodeResult> | NodeResult;
  /**
   * True when an action this node started may be executed again after its process died mid-call.
   * Otherwise such a contract is moved `RUNNING → FAILED` ("interrupted") and not re-executed.
   */
  idempotent?: boolean;
  /** Called for an interrupted, non-idempotent action before it is marked FAILED (undo hook). */
  compensate?(contract: ContractView): Promise<void> | void;
}

// ---------------------------------------------------------------- actions (port to sources)

export type ActionOutcome =
  | { ok: true; result: Json; observation?: string }
  | {
      ok: false;
      error_message: string;
      /** The failure as data; when omitted the engine records `ACTION_FAILED` with `error_message`. */
      error?: ContractFailure;
      observation?: string;
    };

export interface ActionContext {
  run_id: string;
  node_id: string;
  step: number;
  signal: AbortSignal;
  /**
   * Given only to an executor that `joinsTransitions`: `running(write)` runs the executor's own
   * pre-call writes in the transaction that also moves the contract PENDING → RUNNING (fenced by
   * the lease), so one commit makes both durable. The executor calls it once, before the call is
   * made; if it never does (it failed first), the engine moves the contract itself.
   */
  transitions?: {
    running<T>(write: (tx: Transaction) => Promise<T>): Promise<T>;
    /**
     * `running` without a promise: `write` runs in a synchronous transaction (`Store.transactionSync`)
     * with the same move, where the store offers one and the run's events need no turn of the event
     * loop; else `STORE_BUSY`, having written nothing, and the executor uses `running`. Optional.
     */
    runningSync?<T>(write: (tx: SyncTransaction) => T): T | typeof STORE_BUSY;
    /**
     * Commits the executor's finish writes and settles the contract with their outcome: `write`
     * returns the outcome (COMPLETED/FAILED with it), `null` (the engine settles it after `execute`
     * returns, as usual) or `'landed'` (a retry found an earlier attempt of this very transaction
     * committed). May be called again after a retryable store fault. For an executor with `recover`,
     * which must then find the outcome in what `write` commits, the settle rides on the run's next
     * transaction (see docs/engine.md for the window that leaves); otherwise it commits with `write`.
     */
    finished(write: (tx: Transaction) => Promise<ActionOutcome | 'landed' | null>): Promise<void>;
    /**
     * Given when the executor has `recover` (the settle then rides on the run's next transaction
     * anyway): instead of `finished`, the executor may commit its finish writes on its own, as it
     * would without the engine — one statement, no transaction of the engine's — and then report
     * the outcome they recorded here, once. Not called (the engine settles after `execute` returns,
     * as usual) when the writes did not record this outcome.
     */
    recorded?(outcome: ActionOutcome): void;
  };
}

/**
 * The narrow port through which contracts become side effects (the sources layer implements it).
 * Failures are outcomes (`ok: false`); a thrown error is recorded as a failure too.
 */
export interface ActionExecutor {
  execute(contract: ExecutionContract, ctx: ActionContext): Promise<ActionOutcome>;
  /**
   * Optional. `true`: the engine does not commit PENDING → RUNNING before `execute`; it hands the
   * executor `ctx.transitions.running`, which the executor must call (before it sends anything) to
   * commit that move together with its own record of the call.
   */
  joinsTransitions?: boolean;
  /**
   * Optional. Asked when a contract is found `RUNNING` after its process died (the call may or may
   * not have happened): the call's outcome if the executor recorded it durably (say, an invocation
   * row keyed by `contract_id`), else `null`. A known outcome completes or fails the contract with
   * it (actor `recovery`) and nothing is called again; `null` (or a throw other than a store fault)
   * leaves the engine's rule: re-execute for an `idempotent` node type, else FAILED `interrupted`.
   */
  recover?(contract: ExecutionContract, ctx: ActionContext): Promise<ActionOutcome | null>;
}

// ---------------------------------------------------------------- runs

export interface RunView {
  run_id: string;
  graph_hash: string;
  status: RunStatus;
  /** Super-steps committed. */
  step: number;
  /** Nodes the next super-step runs. */
  frontier: string[];
  state: Record<string, Json>;
  /** Latest output of each node that has run. */
  outputs: Record<string, Json>;
  contracts: ContractView[];
  pending_executions: ContractView[];
  completed_executions: ContractView[];
  error: RunError | null;
  created_at: number;
  updated_at: number;
  /** True when `getRun`'s `max_chars` cut anything; `omitted` then names what. */
  truncated: boolean;
  omitted?: RunViewOmitted;
}

/** What a `max_chars` budget left out of a RunView. */
export interface RunViewOmitted {
  /** State channels not included. */
  state: string[];
  /** Nodes whose output is not included. */
  outputs: string[];
  /** How many contracts are not included; the executions lists derive from the kept ones. */
  contracts: number;
  /** The run error's message was cut and its details dropped. */
  error_cut: boolean;
}

export interface GetRunOptions {
  /**
   * Budget for the serialized view, in characters of JSON. Without it the whole run is returned.
   * Too small for the bare run (status, step, frontier, error) is BUDGET_TOO_SMALL.
   */
  max_chars?: number;
}

export interface ContinueOptions {
  /**
   * `deferred`: the claim commits without waiting for the disk. For a caller whose run was created
   * durably (its own synchronous commit) and whose claim acknowledges nothing and precedes no call
   * (the first call's record commits synchronously and flushes it): a database server crash before
   * then leaves the run queued under its creator's reservation, as a crash of the process between
   * its creation and its claim does (see "Durability and commits" in docs/engine.md).
   */
  durability?: 'deferred';
}

/** What `start`, `resume`, `continueRun` and `claimNext` return once the run stops in this process. */
export interface RunOutcome {
  run_id: string;
  status: RunStatus;
  step: number;
  error: RunError | null;
  /** WAITING contracts when `status` is `waiting`. */
  waiting: ContractView[];
  /**
   * The run's state channels and contracts as this process left them, when the run stopped here
   * after executing (what `getRun` would read back, without reading it); absent otherwise.
   */
  final?: { state: Record<string, Json>; contracts: ContractView[] };
}

// ---------------------------------------------------------------- events: events/types.ts

export type {
  CommitParticipant,
  EngineEvent,
  EngineEventListener,
  EventGap,
  EventGapReason,
  JoinedCommit,
  SubscribeOptions,
} from './events/types.ts';

// ---------------------------------------------------------------- the engine

export interface EngineOptions {
  /** Identity of this process in leases (default: random). */
  owner?: string;
  /** Lease length; a run whose lease expired is recoverable by another process. Default 30 s. */
  leaseMs?: number;
  /** For graphs without `append` channels: a snapshot of channels, outputs and frontier every this many steps. Default 100. */
  snapshotEvery?: number;
  /** Executes contracts for `ctx.perform` / `ctx.act`. Without one, performing fails with NO_ACTION_EXECUTOR. */
  actions?: ActionExecutor;
  /** Fan events out to other processes with LISTEN/NOTIFY when the store supports it. Default true. */
  fanOut?: boolean;
  /**
   * Whether this engine executes runs (default true). An engine that does not (an API process whose
   * runs execute on workers, `noema serve --no-work`) creates and answers runs as usual, but
   * `start`, `continueRun` and `resume` leave the run to whichever process claims it and wait until
   * it stops (completed, failed, cancelled, waiting), following its events where the store fans them
   * out and reading its row at least every `STOP_POLL_MS`; `claimNext` claims nothing.
   */
  executes?: boolean;
  /** Clock, for tests. */
  now?: () => number;
}

/** `claimNext`'s options. */
export interface ClaimOptions {
  /**
   * Take a `queued` run only once it has been queued this long (default 0: at once). A process that
   * creates runs and executes them itself (a server) sets it, so a reclaimer of its own or of another
   * process never takes a run its creator is about to execute; a run queued longer was left behind.
   */
  queuedForMs?: number;
}

/**
 * Drives a run `claimNext` took, so the runtime that owns it closes it as it closes the runs it starts
 * itself (a world attempt's failure, an agent turn's reply and session status). `execute` executes
 * the run (at most once); a driver that does not own the run returns `execute()`. Registered with
 * `engine.driveClaimed`; each driver wraps the ones registered before it.
 */
export type ClaimedRunDriver = (run_id: string, execute: () => Promise<RunOutcome>) => Promise<RunOutcome>;

/** `cancel`'s options. */
export interface CancelOptions {
  /**
   * The caller's own writes for the cancelled run (a runtime's rows of the run: node runs, attempts),
   * committed in the cancel's transaction: both land, or neither.
   */
  writes?(tx: Transaction): Promise<void>;
}

export interface StartOptions {
  /** Initial channel writes. */
  input?: Record<string, Json>;
  /** Use this id (uuid) instead of a fresh uuidv7. */
  run_id?: string;
  /**
   * `createRun` only: the caller's open transaction, in which the run is created — the run and the
   * caller's rows that refer to it (a session's claim, its first message) land together, or neither.
   */
  tx?: Transaction;
  /**
   * `createRun` only: the caller continues the run at once in this process, so it is created
   * reserved to this engine for one lease (`true`) or this many milliseconds — no other process (a
   * worker claiming queued runs) takes it first; once that passes (the creator died before executing
   * it) anyone may. `start` always reserves. Ignored by an engine that executes nothing (its runs
   * are left to others).
   */
  reserve?: boolean | number;
}

export interface Engine {
  /** Whether this engine executes runs (EngineOptions.executes). */
  readonly executes: boolean;
  readonly owner: string;
  /** Registers a node type (UNKNOWN → registered; a second registration of the same type throws). */
  register(type: NodeType<never>): void;
  /** Validates a graph against the registry; throws GRAPH_INVALID with `details.problems` (every problem). */
  validate(graph: GraphSpec): Promise<void>;
  /** Validates and stores a graph (content-addressed), and creates a `queued` run. Does not execute. */
  createRun(graph: GraphSpec, options?: StartOptions): Promise<{ run_id: string; graph_hash: string }>;
  /** createRun + continueRun. */
  start(graph: GraphSpec, options?: StartOptions): Promise<RunOutcome>;
  /** Claims the run (lease) and executes it until it completes, fails, waits or the lease is lost. */
  continueRun(run_id: string, options?: ContinueOptions): Promise<RunOutcome>;
  /**
   * Answers a WAITING contract from any process: checks it is WAITING (else INVALID_TRANSITION) and
   * that `response` matches `payload.response_schema` (else SCHEMA_INVALID) — a rejected resume
   * changes nothing — then moves it `WAITING → RUNNING → COMPLETED` with `result = response` and,
   * when no other contract waits, continues the run at the nodes the graph names.
   */
  resume(run_id: string, contract_id: string, response: Json): Promise<RunOutcome>;
  /**
   * Claims one run that is `queued`, or `running` with an expired lease (a dead process), and
   * executes it — only a run whose graph uses node types all registered with this engine, so a
   * worker never claims (and fails) another runtime's runs. PostgreSQL claims with
   * `FOR UPDATE SKIP LOCKED`. Resolves `null` when none.
   */
  claimNext(options?: ClaimOptions): Promise<RunOutcome | null>;
  /**
   * Whether a run is claimable (as `claimNext` with these options would see it) whose graph uses a
   * node type this engine has not registered: work for another runtime's engine, which a process
   * may then load (a server loads the agent runtime only when there is agent work to reclaim).
   */
  claimableElsewhere(options?: ClaimOptions): Promise<boolean>;
  /**
   * Registers a driver for the runs `claimNext` takes (see ClaimedRunDriver): a runtime that closes
   * its runs after they stop (outside the graph) registers one, so a run a dead process left behind
   * closes as if its creator had finished it. Returns unregister.
   */
  driveClaimed(driver: ClaimedRunDriver): () => void;
  /**
   * Cancels a run that is not finished; its unfinished contracts become CANCELLED, and
   * `options.writes` commit in the same transaction.
   */
  cancel(run_id: string, options?: CancelOptions): Promise<void>;
  /** The run's state, outputs and contracts; `max_chars` bounds the answer (see GetRunOptions). */
  getRun(run_id: string, options?: GetRunOptions): Promise<RunView>;
  getContract(contract_id: string): Promise<ContractView>;
  /**
   * In-process events of one run (and, with LISTEN/NOTIFY, of other processes), in `seq` order.
   * `options.onGap` is told when events may have been missed. Returns unsubscribe.
   */
  subscribe(
    run_id: string,
    listener: EngineEventListener,
    options?: SubscribeOptions,
  ): Promise<() => Promise<void>>;
  /**
   * Gives up the leases of the runs this engine is executing (a draining worker past its grace):
   * each stays `running`, claimable at once by another process, and its execution here stops at
   * its next fenced write (`LEASE_LOST`). Returns how many were released.
   */
  releaseLeases(): Promise<number>;
  /** Runs this engine is executing now. */
  inFlight(): number;
  /** Stops heartbeats and listeners. Runs in flight keep their leases until expiry. */
  close(): Promise<void>;
}
