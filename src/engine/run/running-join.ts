/**
 * A contract performed through an executor that joins its transitions (`ActionExecutor.joinsTransitions`):
 * the state of the join, and what the executor is handed of it (`ActionContext.transitions`).
 */
import { NoemaError } from '../../core/errors.ts';
import type { STORE_BUSY, SyncTransaction, Transaction } from '../../store/store.ts';
import type { ActionContext, ActionOutcome, ContractView } from '../engine.ts';

export type FinishedWrite = ActionOutcome | 'landed' | null;

export interface RunningJoin {
  /** RUNNING committed with the executor's record; `next` is the contract then. */
  committed: boolean;
  next: ContractView;
  /** The settled contract the last joined finish transaction wrote (committed or not). */
  tried: ContractView | null;
  /** The settled contract, once a joined finish transaction committed it. */
  settled: ContractView | null;
  running<T>(write: (tx: Transaction) => Promise<T>): Promise<T>;
  /** `running` without a promise where the store and the run's events allow, else `STORE_BUSY`. */
  runningSync<T>(write: (tx: SyncTransaction) => T): T | typeof STORE_BUSY;
  finished(write: (tx: Transaction) => Promise<FinishedWrite>): Promise<void>;
  /** Where the executor can `recover`: its finish committed on its own recorded `outcome`. */
  recorded: ((outcome: ActionOutcome) => void) | undefined;
}

/** The contract of `join`, RUNNING and not yet settled; else INVALID_TRANSITION. */
export function runningJoined(join: RunningJoin): ContractView {
  if (!join.committed || join.settled) {
    throw new NoemaError('INVALID_TRANSITION', `contract ${join.next.contract_id} is not RUNNING here`, {
      details: { contract_id: join.next.contract_id },
    });
  }
  return join.next;
}

/** What an executor that joins transitions is handed of `join`. */
export function joinedTransitions(join: RunningJoin): NonNullable<ActionContext['transitions']> {
  const t: NonNullable<ActionContext['transitions']> = {
    running: join.running,
    runningSync: join.runningSync,
    finished: join.finished,
  };
  if (join.recorded) t.recorded = join.recorded;
  return t;
}
