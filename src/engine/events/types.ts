/**
 * The engine's events (part of the engine contract, re-exported by `engine.ts`): what a run's
 * subscribers receive, in `seq` order, and what tells them they may have missed some.
 */
import type { Transaction } from '../../store/store.ts';
import type { ContractView } from '../execution-contract.ts';
import type { Json } from '../graph/spec.ts';
import type { ContractStatus, RunError, RunStatus } from '../status.ts';

/**
 * What happened to a run, as it happens. Every event carries `seq`: a number strictly increasing per
 * run and identical in every process that sees the event (listeners in the emitting process and
 * LISTEN/NOTIFY receivers elsewhere), so it can serve as an SSE `id` and a resume point.
 *
 * `seq = epoch * 2^32 + index`: `epoch` is the run's claim epoch, a counter in `engine_runs` that
 * every claim (start, continue, recovery, resume) and every cancel increments in its transaction, so
 * the process now acting on the run numbers its events above anything a dead or fenced-out process
 * ever sent; `index` counts the events that process stamped since it claimed. Seqs are not
 * contiguous (an event of a rolled-back transaction burns its number) — a subscriber learns of missed
 * events through `SubscribeOptions.onGap`, never by counting. Subscribers never see a run's seq go
 * backwards: an event older than one already delivered (from a fenced-out process) is dropped.
 *
 * When events are delivered: events describing a commit (`contract.transitioned`,
 * `artifact.persisted`, `run.updated` other than `running`) are sent with that transaction's commit
 * and delivered in-process only after it; a rollback drops them. Progress events (`node.started`,
 * `node.updated`, `node.finished`, `run.updated` `running`) are delivered in-process at once and fan
 * out with the run's next commit, or after 50 ms in a transaction of their own (re-sent with a later
 * one if that commit rolls back).
 */
export type EngineEvent = { seq: number } & (
  | {
      type: 'run.updated';
      run_id: string;
      status: RunStatus;
      step: number;
      at: number;
      error?: RunError | null;
      /** Set on events fanned out to other processes when the error was cut to fit NOTIFY. */
      truncated?: true;
    }
  | {
      type: 'node.started';
      run_id: string;
      node_id: string;
      node_type: string;
      step: number;
      attempt: number;
      at: number;
    }
  | {
      type: 'node.updated';
      run_id: string;
      node_id: string;
      step: number;
      data: Json;
      at: number;
      /** Set (with `data: null`) on events fanned out to other processes when `data` was too large for NOTIFY. */
      truncated?: true;
    }
  | {
      type: 'node.finished';
      run_id: string;
      node_id: string;
      node_type: string;
      step: number;
      attempt: number;
      status: 'ok' | 'suspend' | 'retry_generation' | 'fail';
      duration_ms: number;
      error?: string;
      at: number;
      /** Set on events fanned out to other processes when `error` was cut to fit NOTIFY. */
      truncated?: true;
    }
  | {
      type: 'contract.transitioned';
      run_id: string;
      contract_id: string;
      action_type: string;
      from: ContractStatus | null;
      to: ContractStatus;
      actor: string;
      at: number;
    }
  | {
      type: 'artifact.persisted';
      run_id: string;
      node_id: string;
      step: number;
      artifact_id: string;
      artifact_type: string;
      artifact: Json;
      at: number;
      /** Set (with `artifact: null`) on events fanned out to other processes when the artifact was too large for NOTIFY (it stays stored under `artifact_id`). */
      truncated?: true;
    }
);

export type EngineEventListener = (event: EngineEvent & { origin?: string }) => void;

/**
 * Why events of a run may have been missed:
 * - `listener_reconnected`: the LISTEN connection dropped and is listening again; notifications sent
 *   while it was down are lost;
 * - `event_too_large`: a process dropped an event that did not fit in a notification even abbreviated;
 * - `malformed_notification`: a notification on the events channel could not be read.
 */
export type EventGapReason = 'listener_reconnected' | 'event_too_large' | 'malformed_notification';

export interface EventGap {
  reason: EventGapReason;
  run_id: string;
  /** When known, the seq of the event that was lost. */
  seq?: number;
  at: number;
}

export interface SubscribeOptions {
  /**
   * Called when events of the run MAY have been missed (see EventGapReason). The stream goes on;
   * read the run (`getRun`) to catch up. Called after the cause is over (e.g. once LISTEN works
   * again), so a read made then misses nothing committed before it.
   */
  onGap?: (gap: EventGap) => void;
  /**
   * Rows of the subscriber's own that describe the run's progress (a runtime's stream of what its
   * nodes reported): written inside the run's next transaction in this process, so they commit with
   * the step they describe (or with an earlier transaction of the run), never after it. Only where
   * this process executes the run.
   */
  commitWith?: CommitParticipant;
}

/** What a participant wrote into a transaction of the run: told how that transaction ended. */
export interface JoinedCommit {
  committed(): void;
  rolledBack(): void;
}

/** How a run stops in the transaction that ends it here (see CommitParticipant.stop). */
export interface RunStop {
  status: 'completed' | 'failed';
  error: RunError | null;
  /** The run's state channels and contracts as that transaction leaves them (RunOutcome.final). */
  state: Record<string, Json>;
  contracts: ContractView[];
}

/** See SubscribeOptions.commitWith. */
export interface CommitParticipant {
  /** Whether it holds anything to write (checked before a commit that could skip it). */
  pending(): boolean;
  /** Writes what it holds into `tx`; null when it had nothing. Its failure fails the transaction. */
  join(tx: Transaction): Promise<JoinedCommit | null>;
  /**
   * Called instead of `join` in the transaction that ends the run in this process (completed or
   * failed; not a suspension), whether or not it holds anything: writes what it holds and what goes
   * with the run's end (a runtime's closing of what the run was for), so both commit together. Its
   * failure fails that transaction, and with it the run's end: what it cannot write (a closing
   * someone else did), it leaves out instead of failing.
   *
   * `join` and `stop` run while the transaction's own statements are in flight. Where those were
   * refused (the run's lease lost: a fence the database checks, `Transaction.writeOne`), the
   * database may have aborted the transaction already: a participant's statement then fails, and its
   * `join` or `stop` rejects instead of returning; the transaction fails with the refusal.
   */
  stop?(tx: Transaction, stop: RunStop): Promise<JoinedCommit | null>;
}
