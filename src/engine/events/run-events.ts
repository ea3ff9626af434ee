/**
 * One run's event channel in one process: stamps `seq` (`stamp.ts`), scopes events to the
 * transaction that commits what they describe, writes the steps the run carries first in it
 * (`carried-steps.ts`) with its subscribers' own rows after it, and queues progress events until a
 * commit of the same run carries them to other processes.
 */
import { Incident } from '../../core/warn.ts';
import {
  STORE_BUSY,
  type SyncTransaction,
  type Transaction,
  type TransactionOptions,
} from '../../store/store.ts';
import type { EngineEvent, JoinedCommit, RunStop } from '../engine.ts';
import { runWritesSync, type StepWrite } from '../run/step-writes.ts';
import type { EventBus } from './bus.ts';
import {
  type CarriedStep,
  CarriedSteps,
  NONE_CARRIED,
  type RunTransactionBody,
  type Writing,
} from './carried-steps.ts';
import { type Emit, type EventBody, EventStamp } from './stamp.ts';

export type { CarriedStep, RunTransactionBody } from './carried-steps.ts';
export { type Emit, type EventBody, eventSeq } from './stamp.ts';

/**
 * How long progress events (`ctx.update` of a long node, say) may wait for the run's next commit
 * before they are sent to other processes in a transaction of their own.
 */
const PROGRESS_LATENCY_MS = 50;

/** A transaction that only sends notifications need not wait for a disk flush. */
const NOTIFY_ONLY: TransactionOptions = { durability: 'deferred' };

/** Shared empty list, never mutated: most transactions carry no events (nobody observes the run). */
const NONE: EngineEvent[] = [];
const NONE_JOINED: JoinedCommit[] = [];

const bySeq = (a: EngineEvent, b: EngineEvent) => a.seq - b.seq;

function inSeqOrder(events: readonly EngineEvent[]): boolean {
  for (let i = 1; i < events.length; i++) if (events[i - 1]!.seq > events[i]!.seq) return false;
  return true;
}

export class RunEvents {
  readonly run_id: string;
  readonly #bus: EventBus;
  readonly #stamp: EventStamp;
  /** Progress events not yet carried by a commit to other processes. */
  #unsent: EngineEvent[] = [];
  /** Events to deliver in-process once no transaction of the run is open (kept in seq order then). */
  #held: EngineEvent[] = [];
  #open = 0;
  /** Armed while progress events wait for a commit to carry them (see PROGRESS_LATENCY_MS). */
  #timer: NodeJS.Timeout | null = null;
  /** A timed flush in flight: the run's next transaction waits for it, so commits stay in seq order. */
  #flushing: Promise<void> | null = null;
  /** Steps left to commit with the run's next transaction. */
  readonly #carried: CarriedSteps;
  readonly #flushFailing = new Incident('NOEMA_EVENT_FLUSH_FAILED');
  /** `commitSync`'s writes, what describes them and their events while it runs (see there). */
  #syncWrites: readonly StepWrite[] = [];
  #syncDescribe: ((emit: Emit) => void) | null = null;
  #syncEmitted: EngineEvent[] = NONE;
  readonly #syncEmit: Emit = (body) => {
    this.#syncEmitted = this.#collect(this.#syncEmitted, body);
  };
  /** The carried steps `commitSync`'s transaction wrote first (see `carry`). */
  #syncSteps: CarriedStep[] = NONE_CARRIED;
  readonly #syncBody = (tx: SyncTransaction): void => {
    if (this.#carried.any) this.#syncSteps = this.#carried.writeSync(tx, this.#syncEmit);
    runWritesSync(tx, this.#syncWrites);
    if (this.#syncDescribe !== null) this.#syncDescribe(this.#syncEmit);
  };

  constructor(bus: EventBus, run_id: string) {
    this.#bus = bus;
    this.run_id = run_id;
    this.#stamp = new EventStamp(run_id);
    this.#carried = new CarriedSteps(bus, run_id);
  }

  /** Starts numbering at the claim epoch read (or written) with the claim. */
  claimed(epoch: number): this {
    this.#stamp.claimed(epoch);
    return this;
  }

  /** Whether a subscriber writes with the transaction that ends the run (CommitParticipant.stop). */
  get stops(): boolean {
    return this.#bus.stops(this.run_id);
  }

  /** Whether anyone could observe an event of the run (of any type). */
  get observed(): boolean {
    return this.#bus.observed(this.run_id);
  }

  /** Whether anyone could observe an event of the run of `type` (build it only then). */
  observes(type: EventBody['type']): boolean {
    return this.#bus.observes(this.run_id, type);
  }

  /**
   * A progress event: delivered in-process now, sent to other processes with the run's next commit;
   * dropped unstamped when nobody could observe its type.
   */
  progress(body: EventBody): void {
    if (!this.observes(body.type)) return;
    const e = this.#stamp.stamp(body);
    if (!e) return;
    if (this.#bus.fanOut) {
      this.#unsent.push(e);
      this.#armTimer();
    }
    if (this.#open > 0) this.#held.push(e);
    else this.#bus.deliver([e]);
  }

  /**
   * Leaves a step to commit first in the run's next transaction (any of them: a contract's move, an
   * attempt record, the next step, the run's end), instead of a transaction of its own.
   */
  carry(step: Omit<CarriedStep, 'tried' | 'writing'>): void {
    this.#carried.add(step);
  }

  /**
   * Runs `fn` in one transaction. Events passed to `emit` describe what it commits: they go to other
   * processes with this commit (with the progress events not yet sent) and to this process's
   * subscribers after it; a rollback drops them and keeps the progress events for the next commit.
   * With `stop`, the transaction ends the run (CommitParticipant.stop).
   */
  async transaction<T>(fn: RunTransactionBody<T>, options?: TransactionOptions, stop?: RunStop): Promise<T> {
    if (this.#flushing) await this.#flushing;
    const carried = this.#unsent.length > 0 ? this.#unsent : NONE;
    if (carried !== NONE) this.#unsent = [];
    let emitted: EngineEvent[] = NONE;
    let committed = false;
    let mine: Writing | null = null;
    // Subscribers' own rows go with any transaction that commits durably (SubscribeOptions.commitWith).
    const joins = options?.durability !== 'deferred' && this.#bus.joins(this.run_id);
    let joined: JoinedCommit[] = NONE_JOINED;
    this.#open++;
    try {
      const emit: Emit = (body) => {
        emitted = this.#collect(emitted, body);
      };
      let steps: CarriedStep[] = NONE_CARRIED;
      // The carried steps, then `fn`, then the subscribers' own rows.
      const body = async (tx: Transaction): Promise<T> => {
        emitted = NONE;
        const carrying = this.#carried.any;
        if (carrying) mine ??= Promise.withResolvers();
        if (!joins) {
          if (!carrying) return fn(tx, emit, false);
          const c = await this.#carried.writeThen(tx, emit, fn, mine!);
          steps = c.steps;
          return c.result;
        }
        for (const j of joined.splice(0)) j.rolledBack(); // a body run again
        // The subscribers' rows are issued right after the statements the transaction issues first,
        // not once those have answered (one round trip where the store pipelines). A failure of the
        // transaction's own statements is its error; the subscribers' rows then go back with it.
        const running = carrying ? this.#carried.writeThen(tx, emit, fn, mine!) : null;
        const own = running === null ? fn(tx, emit, false) : null;
        const joining = this.#bus.joinCommit(this.run_id, tx, stop);
        joining.catch(() => {});
        let r: T;
        try {
          if (running !== null) {
            const c = await running;
            steps = c.steps;
            r = c.result;
          } else r = await own!;
        } catch (err) {
          for (const j of await joining.catch(() => NONE_JOINED)) j.rolledBack();
          throw err;
        }
        joined = await joining;
        return r;
      };
      const result = await this.#bus.store.transaction(
        this.#bus.fanOut
          ? async (tx) => {
              const r = await body(tx);
              if (carried.length > 0 || emitted.length > 0)
                await this.#bus.notify(tx, carried.length === 0 ? emitted : [...carried, ...emitted]);
              return r;
            }
          : this.#carried.any || joins
            ? body
            : // Nothing is ever sent without fan-out: the callback runs as is, without a wrapper's turn.
              (tx) => {
                emitted = NONE;
                return fn(tx, emit, false);
              },
        options,
      );
      committed = true;
      this.#carried.landed(steps);
      for (const j of joined) j.committed();
      return result;
    } finally {
      if (!committed) for (const j of joined) j.rolledBack();
      this.#carried.written(mine);
      this.#closed(committed, carried, emitted);
    }
  }

  /**
   * Commits `writes` (after any carried steps) as `transaction` would, without a promise, when the
   * store offers `transactionSync` and nothing needs a turn of the event loop (no fan-out to notify,
   * no timed flush in flight, the connection free); `describe`, if any, emits the events of what it
   * commits. Otherwise `STORE_BUSY`, having written nothing: the caller commits through `transaction`.
   * Statements, not a callback: a step's commit allocates no closure.
   */
  commitSync(
    writes: readonly StepWrite[],
    describe: ((emit: Emit) => void) | null,
    options?: TransactionOptions,
  ): true | typeof STORE_BUSY {
    const store = this.#bus.store;
    if (!store.transactionSync || !this.#mayCommitSync()) return STORE_BUSY;
    // Nothing else of the run can run until this returns, so the statements and their events live
    // in fields read by a closure made once per run. (A nested call, which the store refuses,
    // restores the outer call's fields.)
    const outerWrites = this.#syncWrites;
    const outerDescribe = this.#syncDescribe;
    const outerEmitted = this.#syncEmitted;
    const outerSteps = this.#syncSteps;
    this.#syncWrites = writes;
    this.#syncDescribe = describe;
    this.#syncEmitted = NONE;
    this.#syncSteps = NONE_CARRIED;
    let committed = false;
    this.#open++;
    try {
      committed = store.transactionSync(this.#syncBody, options) !== STORE_BUSY;
      if (committed) this.#carried.landed(this.#syncSteps);
      return committed ? true : STORE_BUSY;
    } finally {
      const emitted = this.#syncEmitted;
      this.#syncWrites = outerWrites;
      this.#syncDescribe = outerDescribe;
      this.#syncEmitted = outerEmitted;
      this.#syncSteps = outerSteps;
      this.#closed(committed, NONE, emitted);
    }
  }

  /**
   * Runs `fn` in one transaction as `transaction` would, without a promise, under the conditions of
   * `commitSync` (else `STORE_BUSY`, having run nothing: the caller uses `transaction`). For work
   * that must return a value (a contract's RUNNING move committed with an executor's record); a
   * step's statements go through `commitSync`, which allocates no closure.
   */
  transactionSync<T>(
    fn: (tx: SyncTransaction, emit: Emit, fenced: boolean) => T,
    options?: TransactionOptions,
  ): T | typeof STORE_BUSY {
    const store = this.#bus.store;
    if (!store.transactionSync || !this.#mayCommitSync()) return STORE_BUSY;
    let emitted: EngineEvent[] = NONE;
    const emit: Emit = (body) => {
      emitted = this.#collect(emitted, body);
    };
    let steps: CarriedStep[] = NONE_CARRIED;
    let committed = false;
    this.#open++;
    try {
      const out = store.transactionSync((tx) => {
        emitted = NONE;
        let wrote = false;
        if (this.#carried.any) {
          steps = this.#carried.writeSync(tx, emit);
          wrote = this.#carried.wroteSync;
        }
        return fn(tx, emit, wrote);
      }, options);
      if (out === STORE_BUSY) return out;
      committed = true;
      this.#carried.landed(steps);
      return out;
    } finally {
      this.#closed(committed, NONE, emitted);
    }
  }

  /**
   * Whether a commit needs no turn of the event loop: no fan-out to notify, no timed flush in flight,
   * nothing unsent (without fan-out nothing ever is; the check keeps a carried event from being dropped).
   */
  #mayCommitSync(): boolean {
    return (
      !this.#bus.fanOut &&
      !this.#flushing &&
      this.#unsent.length === 0 &&
      // A subscriber's rows to write with this commit need a promise (SubscribeOptions.commitWith).
      !this.#bus.joining(this.run_id) &&
      // A carried step another transaction is writing cannot be waited for without a promise.
      this.#carried.free
    );
  }

  /** `list` with the stamped event added (a new list in place of the shared empty one). */
  #collect(list: EngineEvent[], body: EventBody): EngineEvent[] {
    const e = this.#stamp.stamp(body);
    if (!e) return list;
    const out = list === NONE ? [] : list;
    out.push(e);
    return out;
  }

  /** After a transaction of the run: what it carried and emitted goes out if it committed, or waits. */
  #closed(committed: boolean, carried: EngineEvent[], emitted: EngineEvent[]): void {
    this.#open--;
    if (!committed && carried !== NONE) this.#unsent = [...carried, ...this.#unsent];
    if (committed && emitted.length > 0) this.#held.push(...emitted);
    // In-process delivery waits until no transaction of the run is open, so it stays in seq order.
    if (this.#open === 0 && this.#held.length > 0) {
      const out = this.#held;
      // Mostly held in order already: sorting copies the list (V8's work array) every time.
      if (!inSeqOrder(out)) out.sort(bySeq);
      this.#held = [];
      this.#bus.deliver(out);
    }
  }

  /** Sends progress events that no later commit of this run will carry. */
  async flush(): Promise<void> {
    if (this.#flushing) await this.#flushing;
    if (this.#unsent.length === 0) return;
    await this.transaction(async () => {}, NOTIFY_ONLY);
  }

  #armTimer(): void {
    if (this.#timer) return;
    this.#timer = setTimeout(() => this.#timedFlush(), PROGRESS_LATENCY_MS);
    this.#timer.unref();
  }

  /** A node running longer than the latency bound: its progress goes out in a transaction of its own. */
  #timedFlush(): void {
    this.#timer = null;
    if (this.#unsent.length === 0) return;
    // An open transaction took what was unsent when it began; later progress waits for the next turn.
    if (this.#open > 0 || this.#flushing) {
      this.#armTimer();
      return;
    }
    this.#flushing = this.transaction(async () => {}, NOTIFY_ONLY)
      .then(
        () => this.#flushFailing.ok(),
        (err) =>
          this.#flushFailing.fail('noema: progress events of a run could not be sent to other processes', {
            run_id: this.run_id,
            error: (err as Error | null)?.message ?? String(err),
          }),
      )
      .finally(() => {
        this.#flushing = null;
      });
  }
}
