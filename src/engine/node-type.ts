/**
 * The node-type contract: what a node type registered by a runtime is given when it executes
 * (NodeContext, its inputs and records) and what it returns (NodeResult). Part of the engine
 * contract, re-exported by `engine.ts`.
 */
import type { ErrorCode } from '../core/errors.ts';
import type { JsonSchema } from '../core/schema-registry.ts';
import type { SqlValue, STORE_BUSY, SyncTransaction, Transaction } from '../store/store.ts';
import type { ContractView } from './execution-contract.ts';
import type { Json } from './graph/spec.ts';

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
