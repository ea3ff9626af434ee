/** What `invokeSource` returns, and how a caller joins its own writes to the invocation's commits. */
import type { NoemaError } from '../../core/errors.ts';
import type { STORE_BUSY, SyncTransaction, Transaction } from '../../store/store.ts';
import type { FailureClass } from '../source.ts';

export interface InvocationOutcome {
  ok: boolean;
  source_invocation_id: string;
  invocation_seq: number;
  llm_call_id: string | null;
  /** `interrupted`: recovery in another process marked the row while the call ran; its result is not used. */
  status: 'succeeded' | 'failed' | 'interrupted';
  failure_class: FailureClass | null;
  /** The JSON result (validated when a result schema was given); undefined on failure. */
  output: unknown;
  /** On failure: the typed error (a SourceFailure for expected failures). */
  error: NoemaError | null;
}

/** Runs `write` in one transaction (the caller may add its own writes to it). */
export type TransactionRunner = <T>(write: (tx: Transaction) => Promise<T>) => Promise<T>;

export interface InvokeOptions {
  /**
   * Commits the `running` row: by default its own transaction; a caller passing a runner (the
   * engine, moving its contract to RUNNING) commits the row together with its own writes.
   */
  running?: TransactionRunner;
  /**
   * With `running`: the same transaction run synchronously (`Store.transactionSync`), tried first
   * where the lease needs no write; `STORE_BUSY` (nothing written) falls back to `running`.
   */
  runningSync?: <T>(write: (tx: SyncTransaction) => T) => T | typeof STORE_BUSY;
  /**
   * Commits the finished row with the caller's own writes: `write` finishes the rows and returns
   * the outcome the call will return (`null` when the row was interrupted meanwhile, `landed` when
   * an earlier attempt of the transaction committed). Retried after a retryable store fault; if it
   * fails otherwise, the row is finished alone as without it.
   */
  finished?: (write: (tx: Transaction) => Promise<InvocationOutcome | 'landed' | null>) => Promise<void>;
  /**
   * Told the outcome once the finished row, committed on its own (as without `finished`), holds it;
   * not called when it does not (recovery interrupted the row, or recording the result failed).
   */
  recorded?: (outcome: InvocationOutcome) => void;
}
