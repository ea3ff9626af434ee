/**
 * The steps a run leaves to commit first in its next transaction (`RunEvents.carry`): writing them
 * ahead of that transaction's own statements, skipping the ones a lost answer already committed,
 * and keeping two transactions of the run (two connections on PostgreSQL) from writing one twice.
 */
import type { SqlValue, SyncTransaction, Transaction } from '../../store/store.ts';
import { issueWrites, runWritesSync, type StepWrite } from '../run/step-writes.ts';
import type { EventBus } from './bus.ts';
import type { Emit } from './stamp.ts';

/**
 * The body of a run's transaction. `fenced`: it follows carried steps' writes, which check the
 * run's lease (the transaction fails if it was lost); otherwise nothing in it has checked the lease.
 */
export type RunTransactionBody<T> = (tx: Transaction, emit: Emit, fenced: boolean) => Promise<T>;

/**
 * A step left to commit with the run's next transaction (`carry`): its statements, the probe that
 * finds its journal row (null: its statements change nothing when run again), whether they check the
 * run's lease (`fenced`), and its events. `tried`: a transaction that wrote it did not report a
 * commit, which may still have landed (its answer lost), so the next one probes first. `writing`:
 * the transaction writing it now, if any; another transaction of the run waits for that one to end
 * before it writes the step or skips it (on PostgreSQL two run on two connections at once).
 */
export interface CarriedStep {
  writes: readonly StepWrite[];
  landed: { sql: string; params: SqlValue[] } | null;
  /** False: its writes do not check the lease (a node's record); a step's and a settle's do. */
  fenced?: boolean;
  emit: ((emit: Emit) => void) | null;
  tried: boolean;
  writing: Writing | null;
}

/** One transaction writing carried steps: its promise settles when it has committed or failed. */
export type Writing = PromiseWithResolvers<void>;

/** Shared empty list, never mutated: most transactions carry no step. */
export const NONE_CARRIED: CarriedStep[] = [];

const isFenced = (c: CarriedStep): boolean => c.fenced !== false;

/** One run's carried steps in one process, oldest first. */
export class CarriedSteps {
  readonly #bus: EventBus;
  readonly #run_id: string;
  #steps: CarriedStep[] = [];
  #wroteSync = false;

  constructor(bus: EventBus, run_id: string) {
    this.#bus = bus;
    this.#run_id = run_id;
  }

  /** Whether any step waits for the run's next transaction. */
  get any(): boolean {
    return this.#steps.length > 0;
  }

  /** Whether no transaction is writing a step now (one cannot be waited for without a promise). */
  get free(): boolean {
    return this.#steps.every((c) => c.writing === null);
  }

  /** Whether the last `writeSync` wrote any step that checks the lease. */
  get wroteSync(): boolean {
    return this.#wroteSync;
  }

  add(step: Omit<CarriedStep, 'tried' | 'writing'>): void {
    this.#steps.push({ ...step, tried: false, writing: null });
  }

  #observed(): boolean {
    return this.#bus.observed(this.#run_id);
  }

  /** A carried step being written by a transaction other than `mine`, if any. */
  #writtenByOther(mine: Writing): CarriedStep | undefined {
    return this.#steps.find((c) => c.writing !== null && c.writing !== mine);
  }

  /** After a transaction that wrote carried steps ended (its landed steps already dropped). */
  written(mine: Writing | null): void {
    if (mine === null) return;
    for (const c of this.#steps) if (c.writing === mine) c.writing = null;
    mine.resolve();
  }

  /**
   * The carried steps' writes, first in a transaction; the ones a lost answer already committed are
   * skipped. `wrote`: some that check the lease were written.
   */
  async #write(tx: Transaction, emit: Emit): Promise<{ steps: CarriedStep[]; wrote: boolean }> {
    const steps = [...this.#steps];
    let wrote = false;
    for (const c of steps) {
      if (c.tried && c.landed && (await tx.get(c.landed.sql, c.landed.params))) continue;
      c.tried = true;
      if (isFenced(c)) wrote = true;
      issueWrites(tx, c.writes);
      if (c.emit && this.#observed()) c.emit(emit);
    }
    return { steps, wrote };
  }

  /**
   * `fn` after the carried steps' writes. Untried steps' writes are only issued before `fn` runs
   * (`issueWrites`): `fn`'s statements follow them in the same round trip where the store pipelines
   * (they run after them either way). A failed carried write is the transaction's error, not what
   * `fn` met after it (the store's rule for issued writes).
   */
  async writeThen<T>(
    tx: Transaction,
    emit: Emit,
    fn: RunTransactionBody<T>,
    mine: Writing,
  ): Promise<{ steps: CarriedStep[]; result: T }> {
    // A step another transaction is writing has landed or not once that one ends: until then this
    // one can neither skip it nor write it (the same row twice: a unique key conflict).
    for (let other = this.#writtenByOther(mine); other; other = this.#writtenByOther(mine))
      await other.writing!.promise;
    const steps = [...this.#steps];
    for (const c of steps) c.writing = mine;
    if (steps.some((c) => c.tried)) {
      const written = await this.#write(tx, emit);
      return { steps: written.steps, result: await fn(tx, emit, written.wrote) };
    }
    for (const c of steps) {
      c.tried = true;
      issueWrites(tx, c.writes);
    }
    // Described now, in commit order; dropped with the transaction if a write is refused.
    if (this.#observed()) for (const c of steps) c.emit?.(emit);
    // Steps carried when the transaction was asked for may have landed with another one meanwhile.
    const result = await fn(tx, emit, steps.some(isFenced));
    return { steps, result };
  }

  /** `#write` without a promise; whether it wrote any is left in `wroteSync` (no allocation). */
  writeSync(tx: SyncTransaction, emit: Emit): CarriedStep[] {
    const steps = [...this.#steps];
    this.#wroteSync = false;
    for (const c of steps) {
      if (c.tried && c.landed && tx.get(c.landed.sql, c.landed.params)) continue;
      c.tried = true;
      if (isFenced(c)) this.#wroteSync = true;
      runWritesSync(tx, c.writes);
      if (c.emit && this.#observed()) c.emit(emit);
    }
    return steps;
  }

  /** After a commit: the steps it carried are durable (later ones, carried meanwhile, wait). */
  landed(steps: CarriedStep[]): void {
    if (steps.length > 0) this.#steps = this.#steps.filter((c) => !steps.includes(c));
  }
}
