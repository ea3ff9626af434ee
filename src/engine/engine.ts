/**
 * The engine contract: graphs of typed nodes, runs with a durable delta journal, ExecutionContracts,
 * suspension as a value, resume from any process, leases, retries and events. This file owns the
 * runs (`Engine`, its options and what it returns) and re-exports the rest of the contract from the
 * files that own it (`graph/spec.ts`, `status.ts`, `execution-contract.ts`, `node-type.ts`,
 * `events/types.ts`). Implementations live in `graph/`, `contracts/`, `journal/`, `run/`, `actions/`
 * and `events/`; code above this layer sees only this file (re-exported by `index.ts`). The engine
 * knows no node types: runtimes register them.
 */
import type { Transaction } from '../store/store.ts';
import type { EngineEventListener, SubscribeOptions } from './events/types.ts';
import type { ActionExecutor, ContractView } from './execution-contract.ts';
import type { GraphSpec, Json } from './graph/spec.ts';
import type { NodeType } from './node-type.ts';
import type { RunError, RunStatus } from './status.ts';

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

export type { ContractStatus, RunError, RunStatus } from './status.ts';

// ---------------------------------------------------------------- contracts, actions: execution-contract.ts

export type {
  ActionContext,
  ActionExecutor,
  ActionOutcome,
  ContractFailure,
  ContractTransition,
  ContractView,
  ExecutionContract,
} from './execution-contract.ts';

// ---------------------------------------------------------------- nodes: node-type.ts

export type {
  CorrectiveNote,
  InputContext,
  NewArtifact,
  NewContract,
  NodeContext,
  NodeEffects,
  NodeResult,
  NodeType,
  RunRecords,
  UpstreamAttachments,
  UpstreamOutput,
} from './node-type.ts';

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
  RunStop,
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
  /**
   * `createRun` only: the caller executes the run in this process right after (`continueRun`), so
   * it is created claimed — `running` under this engine's lease, its first attempt recorded — and
   * the claim `continueRun` would commit on its own rides in the creation's transaction. A creator
   * that dies before executing it leaves it to any process once that lease passes, as a claimed run
   * whose process died. Ignored by an engine that executes nothing (its runs are left to others).
   */
  claim?: boolean;
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
