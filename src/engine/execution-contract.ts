/**
 * ExecutionContracts (seed 000) as a run records them, and the ActionExecutor port through which
 * they become side effects (the sources layer implements it). Part of the engine contract,
 * re-exported by `engine.ts`.
 */
import type { ErrorCode } from '../core/errors.ts';
import type { STORE_BUSY, SyncTransaction, Transaction } from '../store/store.ts';
import type { Json } from './graph/spec.ts';
import type { ContractStatus } from './status.ts';

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
