/**
 * The `NodeContext` a node's `execute` receives. A class rather than a literal: a step builds it from
 * a few fields, and what most nodes never read — `input_context`, the contract and corrective lists,
 * the `perform` / `act` / `update` callbacks — is made on first read instead of on every step. What
 * follows from the run (its id, the node's spec, the run's state and signal) is read through getters:
 * a context is made on every step, mostly before V8 has optimized the code that makes it, and each
 * field it defines costs that step.
 */

import type { TransactionOptions } from '../../store/store.ts';
import type {
  ContractView,
  CorrectiveNote,
  InputContext,
  Json,
  NodeContext,
  NodeSpec,
  NodeType,
  RunRecords,
} from '../engine.ts';
import type { RunEvents } from '../events/run-events.ts';
import type { CompiledGraph } from '../graph/compile.ts';
import type { AttemptEntry } from '../journal/entries.ts';
import type { RunContracts, RunRef } from './contracts-in-run.ts';
import type { EngineDeps } from './deps.ts';
import { LeaseLost } from './deps.ts';
import { leaseHeldQuery } from './lease-fence.ts';
import type { RunState } from './state.ts';
import { type FrontierEntry, inputContextOf } from './state.ts';

/** What a node's step runs with: the run, its graph and state, its contracts and events. */
export interface NodeRun {
  deps: EngineDeps;
  run: RunRef;
  graph: CompiledGraph;
  state: RunState;
  contracts: RunContracts;
  attempts: Map<string, AttemptEntry[]>;
  signal: AbortSignal;
  /**
   * The first step this claim (or resumption) of the run executes: its records may exist already. The
   * step before it on a run's first claim by the engine that created it (nothing has executed).
   */
  firstStep: number;
  /** `signal.aborted`, kept by whoever aborts it: read on every step, where the getter costs a call. */
  aborted: boolean;
  events: RunEvents;
}

/** What a context makes on first read. */
interface Made {
  input: InputContext | null;
  corrective: CorrectiveNote[] | null;
  pending: ContractView[] | null;
  completed: readonly ContractView[] | null;
  /** The run's finished contracts when the context was made: the first `length` of `list`. */
  completedAt: { list: readonly ContractView[]; length: number } | null;
  perform: NodeContext['perform'] | null;
  act: NodeContext['act'] | null;
  update: NodeContext['update'] | null;
  records: RunRecords | null;
  /** Unkeyed `act` calls so far: the key of the next one is `#<n>`. */
  acts: number;
}

const NO_NOTES: readonly CorrectiveNote[] = [];

export class StepContext implements NodeContext {
  // Declared, not defined: the constructor adds them (in this order), so the context's own fields
  // are made once, not defined empty and then set.
  declare readonly step: number;
  declare readonly attempt: number;
  readonly #r: NodeRun;
  readonly #entry: FrontierEntry;
  readonly #spec: NodeSpec;
  readonly #notes: readonly CorrectiveNote[];
  #made: Made | null = null;

  constructor(
    r: NodeRun,
    entry: FrontierEntry,
    spec: NodeSpec,
    attempt: number,
    notes: readonly CorrectiveNote[],
  ) {
    this.#r = r;
    this.#entry = entry;
    this.#spec = spec;
    this.step = r.state.step + 1;
    this.attempt = attempt;
    this.#notes = notes;
    // The contract lists are taken when the context is made (a node's own `act` adds contracts
    // later). Most runs hold no contract: nothing to copy. The finished ones (all of a long run's,
    // which its nodes seldom read) are copied on first read, not per step.
    if (r.contracts.byId.size > 0) {
      const made = this.#lazy();
      made.pending = r.contracts.pendingNow();
      made.completedAt = r.contracts.completedNow();
    }
  }

  #lazy(): Made {
    this.#made ??= {
      input: null,
      corrective: null,
      pending: null,
      completed: null,
      completedAt: null,
      perform: null,
      act: null,
      update: null,
      records: null,
      acts: 0,
    };
    return this.#made;
  }

  get run_id(): string {
    return this.#r.run.run_id;
  }

  get node_id(): string {
    return this.#spec.id;
  }

  get node_type(): string {
    return this.#spec.type;
  }

  get config(): Json {
    return (this.#spec.config ?? null) as Json;
  }

  get state(): Readonly<Record<string, Json>> {
    return this.#r.state.channels;
  }

  get signal(): AbortSignal {
    return this.#r.signal;
  }

  get mayRepeat(): boolean {
    return this.attempt > 1 || this.step <= this.#r.firstStep;
  }

  get input_context(): InputContext {
    const made = this.#lazy();
    made.input ??= inputContextOf(this.#r.graph, this.#r.state, this.#entry);
    return made.input;
  }

  get corrective_context(): readonly CorrectiveNote[] {
    // A copy: the run's list of notes grows with later attempts.
    const made = this.#lazy();
    made.corrective ??= this.#notes === NO_NOTES ? [] : [...this.#notes];
    return made.corrective;
  }

  get pending_executions(): readonly ContractView[] {
    const made = this.#lazy();
    made.pending ??= [];
    return made.pending;
  }

  get completed_executions(): readonly ContractView[] {
    const made = this.#lazy();
    if (made.completed === null) {
      const at = made.completedAt;
      made.completed = at === null || at.length === 0 ? [] : at.list.slice(0, at.length);
    }
    return made.completed;
  }

  // The callbacks are closures (made once per context), so a node may call them detached.
  /** The node's type: the registry's, as the step ran it (a registered type is never replaced). */
  #type(): NodeType<never> {
    return this.#r.deps.registry.get(this.#spec.type)!;
  }

  get perform(): NodeContext['perform'] {
    const made = this.#lazy();
    made.perform ??= (id) => this.#r.contracts.perform(this.#spec.id, this.#type(), id, this.#r.signal);
    return made.perform;
  }

  get act(): NodeContext['act'] {
    const made = this.#lazy();
    made.act ??= (action_type, payload, options) => {
      const contracts = this.#r.contracts;
      const key = options?.key ?? `#${made.acts++}`;
      return contracts.act(
        this.#spec.id,
        this.#type(),
        // Attempts count from 1, so 0 names an action shared by every attempt of the execution.
        contracts.actId(this.#spec.id, options?.acrossAttempts ? 0 : this.attempt, key),
        action_type,
        payload,
        this.#r.signal,
      );
    };
    return made.act;
  }

  get update(): NodeContext['update'] {
    const made = this.#lazy();
    made.update ??= (data) => {
      // Unobserved, nothing is built: a runtime's node may report progress many times a step.
      if (!this.#r.events.observes('node.updated')) return;
      this.#r.events.progress({
        type: 'node.updated',
        run_id: this.run_id,
        node_id: this.node_id,
        step: this.step,
        data,
        at: this.#r.deps.now(),
      });
    };
    return made.update;
  }

  get records(): RunRecords {
    const made = this.#lazy();
    made.records ??= runRecords(this.#r, this.#spec.id, this.step);
    return made.records;
  }
}

/** A record that precedes no call commits as a mid-run step does (RunRecords.running). */
const DEFERRED: TransactionOptions = { durability: 'deferred' };

/**
 * `NodeContext.records` of a run: its events' transactions, which write the carried steps first —
 * their writes check the lease — or else check it with a query of their own, so a record commits
 * only while the run is this process's (on PostgreSQL the check holds the run's row `FOR SHARE`: a
 * concurrent claim waits for the commit).
 */
function runRecords(r: NodeRun, node_id: string, step: number): RunRecords {
  const sql = leaseHeldQuery(r.deps.store.dialect.forShare);
  const params = [r.run.run_pk, r.deps.owner];
  // A run that knows its lease is lost opens no transaction (and so makes no call).
  const known = () => {
    if (r.aborted) throw new LeaseLost();
  };
  return {
    running: (write, options) => {
      known();
      return r.events.transaction(
        async (tx, _emit, fenced) => {
          if (!fenced && !(await tx.get(sql, params))) throw new LeaseLost();
          return write(tx);
        },
        options?.durability === 'deferred' ? DEFERRED : undefined,
      );
    },
    runningSync: (write) => {
      known();
      return r.events.transactionSync((tx, _emit, fenced) => {
        if (!fenced && !tx.get(sql, params)) throw new LeaseLost();
        return write(tx);
      });
    },
    carry: (writes, update) => {
      known();
      r.events.carry({
        writes: writes.map((w) => ({ sql: w.sql, params: w.params, miss: null })),
        landed: null,
        fenced: false,
        emit:
          update === undefined
            ? null
            : (emit) =>
                emit({
                  type: 'node.updated',
                  run_id: r.run.run_id,
                  node_id,
                  step,
                  data: update,
                  at: r.deps.now(),
                }),
      });
    },
  };
}
