/**
 * Contracts of one executing run: an in-memory cache of its rows, and the durable moves a node makes
 * through `ctx.perform` / `ctx.act` — each transition committed (fenced by the lease) before the next
 * thing happens, so an action is durable before the call and its result before the node continues.
 */
import { NoemaError } from '../../core/errors.ts';
import { sha256Hex } from '../../core/hash.ts';
import { isStoreFault } from '../../store/index.ts';
import {
  type SqlValue,
  STORE_BUSY,
  type SyncTransaction,
  type Transaction,
  type TransactionOptions,
} from '../../store/store.ts';
import {
  insertContract,
  insertContractFencedStatement,
  updateContractFencedStatement,
  updateContractStatement,
  viewOf,
} from '../contracts/contract-store.ts';
import { engineFailure, failureOf } from '../contracts/failure.ts';
import { createContract, isFinal, transition } from '../contracts/transitions.ts';
import type { ActionOutcome, ContractStatus, ContractView, Json, NodeType } from '../engine.ts';
import type { Emit, RunEvents } from '../events/run-events.ts';
import type { TransitionEntry } from '../journal/entries.ts';
import { fencedAppendStatement } from '../journal/journal.ts';
import { ContractLists } from './contract-lists.ts';
import { hasStatus, type MoveExtra, nextView, settleMove } from './contract-moves.ts';
import { type EngineDeps, LeaseLost, leaseLost } from './deps.ts';
import type { LeaseFence } from './lease-fence.ts';
import { type FinishedWrite, joinedTransitions, type RunningJoin, runningJoined } from './running-join.ts';
import type { RunState } from './state.ts';

const RESULT_RETRY_DELAYS_MS = [25, 100, 400];

/**
 * A joined settle commits like the invocation's own finish would alone: deferred. It precedes no
 * call (the next call's RUNNING commit is synchronous and flushes it, the WAL being flushed in
 * order) and acknowledges nothing (whoever uses the result commits after it). Lost in a database
 * server crash, the invocation is `running` again and recovery interrupts it, as for a crash mid-call.
 */
const SETTLE_WITH_FINISH: TransactionOptions = { durability: 'deferred' };

export interface RunRef {
  run_pk: number;
  run_id: string;
}

/** A run's contracts and their moves; the lists node contexts read are its base class's. */
export class RunContracts extends ContractLists {
  readonly #deps: EngineDeps;
  readonly #run: RunRef;
  readonly #state: RunState;
  readonly #events: RunEvents;
  /**
   * The first store fault met while the current node ran. A node may catch the error `ctx.act`
   * threw and carry on; the run must still stop and be reclaimed, so the node runner checks this.
   */
  fault: unknown;

  constructor(deps: EngineDeps, run: RunRef, state: RunState, contracts: ContractView[], events: RunEvents) {
    super(contracts);
    this.#deps = deps;
    this.#events = events;
    this.#run = run;
    this.#state = state;
  }

  /** Deterministic id for `ctx.act`, so a re-executed node finds its journaled action. */
  actId(node: string, attempt: number, key: string): string {
    const h = sha256Hex(
      `${this.#run.run_id}\u0000${this.#state.step + 1}\u0000${node}\u0000${attempt}\u0000${key}`,
    );
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
  }

  async act(
    node: string,
    type: NodeType<never>,
    id: string,
    action_type: string,
    payload: Json,
    signal: AbortSignal,
  ): Promise<ContractView> {
    if (!this.byId.has(id)) {
      const now = this.#deps.now();
      const c = viewOf(createContract(id, action_type, payload, `node:${node}`, now), node, null);
      // An executor that joins transitions commits the new contract, already RUNNING, with its own
      // record of the call: one commit where creating it first would take two.
      if (this.#deps.actions?.joinsTransitions) return this.#performJoined(c, node, signal, true);
      await this.#commit(c, null, async (tx) => insertContract(tx, this.#run.run_pk, c, now));
    }
    return this.perform(node, type, id, signal);
  }

  async perform(node: string, type: NodeType<never>, id: string, signal: AbortSignal): Promise<ContractView> {
    let c = this.byId.get(id);
    if (!c)
      throw new NoemaError('UNKNOWN_CONTRACT', `run ${this.#run.run_id} has no contract ${id}`, {
        details: { contract_id: id },
      });
    if (isFinal(c.status)) return c;
    if (c.status === 'WAITING') {
      throw new NoemaError(
        'INVALID_TRANSITION',
        `contract ${id} is WAITING: it is answered with resume(), not performed`,
        {
          details: { contract_id: id, from: 'WAITING' },
        },
      );
    }
    if (c.status === 'RUNNING') {
      // A dead process started this call: the executor may know durably how it ended.
      const known = await this.#recover(c, node, signal);
      if (signal.aborted) throw new LeaseLost();
      if (known) return this.#settle(c, known, 'recovery');
    }
    if (c.status === 'RUNNING' && !type.idempotent) {
      // A dead process started this call; whether it happened is unknown, so it is not repeated.
      if (type.compensate) await type.compensate(c);
      const message = 'interrupted: the process running this action stopped; not re-executed';
      return this.#move(c, 'FAILED', 'recovery', {
        error_message: message,
        error: engineFailure('ACTION_INTERRUPTED', message),
      });
    }
    if (c.status === 'PENDING' && this.#deps.actions?.joinsTransitions)
      return this.#performJoined(c, node, signal, false);
    if (c.status === 'PENDING') c = await this.#move(c, 'RUNNING', `node:${node}`, {});
    const outcome = await this.#execute(c, node, signal);
    if (signal.aborted) throw new LeaseLost();
    return this.#settle(c, outcome, 'executor');
  }

  /**
   * Performs a PENDING contract through an executor that joins its transitions: RUNNING commits with
   * the executor's `running` record, the settle with its `finished` one. `fresh`: the contract is not
   * stored yet (`ctx.act`), so the RUNNING commit inserts it.
   */
  async #performJoined(
    c: ContractView,
    node: string,
    signal: AbortSignal,
    fresh: boolean,
  ): Promise<ContractView> {
    const join = this.#runningJoin(c, node, fresh);
    const outcome = await this.#execute(c, node, signal, join);
    if (signal.aborted) throw new LeaseLost();
    if (join.settled) return join.settled;
    // The executor failed before it could commit RUNNING with its record: move it here.
    if (join.committed) c = join.next;
    else if (fresh) {
      const now = this.#deps.now();
      const running = join.next;
      await this.#commit(running, null, async (tx) => insertContract(tx, this.#run.run_pk, running, now));
      c = running;
    } else c = await this.#move(c, 'RUNNING', `node:${node}`, {});
    // A joined settle that reported failure may still have committed (its answer lost).
    if (join.tried && (await hasStatus(this.#deps.store, join.tried))) {
      this.put(join.tried);
      return join.tried;
    }
    return this.#settle(c, outcome, 'executor');
  }

  /**
   * The executor's finish transaction and the contract's settle: `write` (the executor's rows)
   * returns the outcome to settle with, `null` (the engine settles it later itself) or `landed` (an
   * earlier attempt of this transaction committed; `join.tried` holds the outcome computed then).
   * An executor that can `recover` an outcome from those rows commits them alone, and the settle is
   * carried to the run's next transaction (a later contract's RUNNING commit, the step, the run's
   * end; not a call a node makes directly): until then its rows are the outcome's durable record,
   * which recovery reads after a crash, so the settle need not cost this commit a statement and its
   * events. Otherwise both commit together.
   */
  async #joinFinished(join: RunningJoin, write: (tx: Transaction) => Promise<FinishedWrite>): Promise<void> {
    const from = runningJoined(join);
    const settleOf = (o: FinishedWrite): ContractView | null => {
      if (o === 'landed') return join.tried;
      if (o === null) return null;
      const { to, extra } = settleMove(o);
      join.tried = nextView(from, to, 'executor', extra, this.#deps.now());
      return join.tried;
    };
    let next: ContractView | null = null;
    if (this.#deps.actions?.recover) {
      await this.#deps.store.transaction(async (tx) => {
        next = settleOf(await write(tx));
      }, SETTLE_WITH_FINISH);
      if (next !== null) this.#carryJoinedSettle(join, from, next);
      return;
    }
    await this.#events.transaction(async (tx, emit) => {
      next = settleOf(await write(tx));
      if (next === null) return;
      // No journal row: the lease fences the contract's own update (see #runningJoin).
      const n = next as ContractView;
      const w = this.#settleStatement(n, from.status);
      tx.writeOne(w.sql, w.params, leaseLost);
      this.#emitTransitions(emit, n, from.status);
    }, SETTLE_WITH_FINISH);
    if (next === null) return;
    const settled = next as ContractView;
    this.put(settled);
    join.settled = settled;
  }

  /**
   * An executor that can `recover` committed its finish writes on its own, recording `outcome`:
   * as `#joinFinished` with such an executor, but without a transaction of the engine's around them.
   */
  #joinRecorded(join: RunningJoin, outcome: ActionOutcome): void {
    const from = runningJoined(join);
    const { to, extra } = settleMove(outcome);
    this.#carryJoinedSettle(join, from, nextView(from, to, 'executor', extra, this.#deps.now()));
  }

  /** A joined contract settled as `settled`, its row's update carried to the run's next transaction. */
  #carryJoinedSettle(join: RunningJoin, from: ContractView, settled: ContractView): void {
    this.#carrySettle(settled, from.status);
    this.put(settled);
    join.settled = settled;
  }

  /** The joined settle's update of the contract row, fenced by the run's lease. */
  #settleStatement(n: ContractView, from: ContractStatus): { sql: string; params: SqlValue[] } {
    return updateContractFencedStatement(this.#fence(), n, from, n.transitions.at(-1)!.at);
  }

  /** The settle `#joinFinished` leaves to the run's next transaction: fenced by the lease, as there. */
  #carrySettle(n: ContractView, from: ContractStatus): void {
    const w = this.#settleStatement(n, from);
    this.#events.carry({
      writes: [{ sql: w.sql, params: w.params, miss: leaseLost }],
      landed: {
        sql: 'SELECT 1 AS x FROM engine_contracts WHERE contract_id = ? AND status = ?',
        params: [n.contract_id, n.status],
      },
      emit: (emit) => this.#emitTransitions(emit, n, from),
    });
  }

  /**
   * The PENDING → RUNNING move an executor that `joinsTransitions` commits with its own writes
   * (inserting the contract, when `fresh`, instead of updating it). Joined moves write no journal
   * row: the contract write itself is fenced by the lease, the executor's rows record the call, and
   * the contract's `transitions` its history — a row would only cost a statement more per move.
   */
  #runningJoin(c: ContractView, node: string, fresh: boolean): RunningJoin {
    const now = this.#deps.now();
    const next = viewOf(
      transition(c, { to: 'RUNNING', actor: `node:${node}`, at: now }),
      c.node_id,
      undefined,
    );
    /** The fenced statement that moves (or inserts) the contract RUNNING; refused once committed. */
    const runningMove = (): { sql: string; params: SqlValue[] } => {
      if (join.committed) {
        throw new NoemaError('INVALID_TRANSITION', `contract ${c.contract_id} is already RUNNING`, {
          details: { contract_id: c.contract_id, from: 'RUNNING' },
        });
      }
      const fence = this.#fence();
      return fresh
        ? insertContractFencedStatement(fence, next, now)
        : updateContractFencedStatement(fence, next, c.status, now);
    };
    const join: RunningJoin = {
      committed: false,
      next,
      tried: null,
      settled: null,
      finished: (write) => this.#joinFinished(join, write),
      recorded: this.#deps.actions?.recover ? (outcome) => this.#joinRecorded(join, outcome) : undefined,
      runningSync: <T>(write: (tx: SyncTransaction) => T): T | typeof STORE_BUSY => {
        const move = runningMove();
        let out: T | typeof STORE_BUSY;
        try {
          out = this.#events.transactionSync((tx, emit) => {
            if (tx.run(move.sql, move.params).changes !== 1) throw new LeaseLost();
            const value = write(tx);
            this.#emitTransitions(emit, next, fresh ? null : c.status);
            return value;
          });
        } catch (err) {
          if (isStoreFault(err)) throw this.#sawFault(err);
          throw err;
        }
        if (out === STORE_BUSY) return out;
        this.put(next);
        join.committed = true;
        return out;
      },
      running: async <T>(write: (tx: Transaction) => Promise<T>): Promise<T> => {
        const move = runningMove();
        const value = await this.#commit(
          next,
          fresh ? null : c.status,
          (tx) => {
            // Issued before the executor's record, its fence checked by the store (writeOne): where
            // the store pipelines, the move, the record and the COMMIT travel in one round trip. A
            // lost lease commits nothing and is the transaction's error.
            tx.writeOne(move.sql, move.params, leaseLost);
            return write(tx);
          },
          false,
          false,
        );
        join.committed = true;
        return value as T;
      },
    };
    return join;
  }

  /** Commits a call's outcome: COMPLETED with its result or FAILED with its failure. */
  #settle(c: ContractView, outcome: ActionOutcome, actor: string): Promise<ContractView> {
    // The outcome exists only in this process now: a passing store fault must not turn a performed
    // action into one whose result is lost, so this write is retried.
    const { to, extra } = settleMove(outcome);
    return this.#move(c, to, actor, extra, true);
  }

  /** The executor's durable knowledge of an interrupted call (`ActionExecutor.recover`), or null. */
  async #recover(c: ContractView, node: string, signal: AbortSignal): Promise<ActionOutcome | null> {
    const recover = this.#deps.actions?.recover;
    if (!recover) return null;
    try {
      const { node_id: _n, observation: _o, ...contract } = c;
      const ctx = { run_id: this.#run.run_id, node_id: node, step: this.#state.step + 1, signal };
      return (await recover.call(this.#deps.actions, contract, ctx)) ?? null;
    } catch (err) {
      // The store failing under the executor: the run stops and is reclaimed, as for execute.
      if (isStoreFault(err)) throw this.#sawFault(err);
      return null;
    }
  }

  async #execute(
    c: ContractView,
    node: string,
    signal: AbortSignal,
    join: RunningJoin | null = null,
  ): Promise<ActionOutcome> {
    const executor = this.#deps.actions;
    if (!executor) {
      const message = 'this engine was created without an action executor';
      return {
        ok: false,
        error_message: `NO_ACTION_EXECUTOR: ${message}`,
        error: engineFailure('NO_ACTION_EXECUTOR', message),
      };
    }
    try {
      const { node_id: _n, observation: _o, ...contract } = c;
      return await executor.execute(contract, {
        run_id: this.#run.run_id,
        node_id: node,
        step: this.#state.step + 1,
        signal,
        ...(join ? { transitions: joinedTransitions(join) } : {}),
      });
    } catch (err) {
      // The lease was lost while the executor committed RUNNING: this process stops here.
      if (err instanceof LeaseLost) throw err;
      // The store failed under the executor (its durable trace could not be written): the action's
      // outcome is unknown, not failed. The contract stays RUNNING and the run is reclaimed.
      if (isStoreFault(err)) throw this.#sawFault(err);
      return { ok: false, error_message: (err as Error).message || String(err), error: failureOf(err) };
    }
  }

  #emitTransitions(emit: Emit, next: ContractView, from: ContractStatus | null): void {
    if (!this.#events.observes('contract.transitioned')) return;
    for (const t of next.transitions.slice(from === null ? 0 : -1)) {
      emit({
        type: 'contract.transitioned',
        run_id: this.#run.run_id,
        contract_id: next.contract_id,
        action_type: next.action_type,
        from: t.from,
        to: t.to,
        actor: t.actor,
        at: t.at,
      });
    }
  }

  #fence(): LeaseFence {
    return { dialect: this.#deps.store.dialect, runPk: this.#run.run_pk, owner: this.#deps.owner };
  }

  #sawFault(err: unknown): unknown {
    if (this.fault === undefined) this.fault = err;
    return err;
  }

  async #move(
    c: ContractView,
    to: ContractStatus,
    actor: string,
    extra: MoveExtra,
    retry = false,
  ): Promise<ContractView> {
    const now = this.#deps.now();
    const next = nextView(c, to, actor, extra, now);
    await this.#commit(
      next,
      c.status,
      async (tx) => {
        const u = updateContractStatement(next, c.status, now);
        tx.writeOne(u.sql, u.params, leaseLost);
      },
      retry,
    );
    return next;
  }

  /**
   * One transaction: the contract write plus a fenced journal row (unless `journaled` is false: a
   * joined move, whose `write` is fenced itself); then the cache and the event.
   * With `retry`, a store fault is retried a few times; a retry that finds the contract already in
   * its new status knows the earlier COMMIT landed although its answer was lost.
   */
  async #commit<T = void>(
    next: ContractView,
    from: ContractStatus | null,
    write: (tx: Transaction) => Promise<T>,
    retry = false,
    journaled = true,
  ): Promise<T | undefined> {
    let value: T | undefined;
    const { store, owner } = this.#deps;
    const seq = journaled ? this.#state.seq + 1 : this.#state.seq;
    const entry: TransitionEntry = {
      k: 't',
      c: next.contract_id,
      s: next.status,
      by: next.transitions.at(-1)?.actor ?? 'engine',
    };
    for (let attempt = 0; ; attempt++) {
      try {
        await this.#events.transaction(async (tx, emit) => {
          // A retry finding the contract already moved knows the earlier COMMIT landed.
          if (attempt > 0 && (await hasStatus(tx, next))) return;
          if (journaled) {
            const a = fencedAppendStatement(
              store.dialect,
              this.#run.run_pk,
              seq,
              JSON.stringify(entry),
              owner,
            );
            tx.writeOne(a.sql, a.params, leaseLost);
          }
          value = await write(tx);
          this.#emitTransitions(emit, next, from);
        });
        break;
      } catch (err) {
        const delay = retry ? RESULT_RETRY_DELAYS_MS[attempt] : undefined;
        if (!isStoreFault(err)) throw err;
        if (delay === undefined) throw this.#sawFault(err);
        await new Promise((r) => setTimeout(r, delay));
      }
    }
    this.#state.seq = seq;
    this.put(next);
    return value;
  }
}
