/**
 * The `NodeContext` a node's `execute` receives. A class rather than a literal: a step builds it from
 * a few fields, and what most nodes never read — `input_context`, empty contract and corrective lists,
 * the `perform` / `act` / `update` callbacks — is made on first read instead of on every step.
 */
import type {
  ContractView,
  CorrectiveNote,
  InputContext,
  Json,
  NodeContext,
  NodeSpec,
  NodeType,
} from '../engine.ts';
import type { NodeRun } from './node-runner.ts';
import { type FrontierEntry, inputContextOf } from './state.ts';

export class StepContext implements NodeContext {
  readonly run_id: string;
  readonly node_id: string;
  readonly node_type: string;
  readonly step: number;
  readonly attempt: number;
  readonly config: Json;
  readonly state: Readonly<Record<string, Json>>;
  readonly signal: AbortSignal;
  readonly #r: NodeRun;
  readonly #entry: FrontierEntry;
  readonly #spec: NodeSpec;
  readonly #type: NodeType<never>;
  #input: InputContext | null = null;
  #corrective: CorrectiveNote[] | null;
  // The contract lists are taken when the context is made (a node's own `act` adds contracts later);
  // null stands for an empty list not yet made.
  #pending: ContractView[] | null = null;
  #completed: readonly ContractView[] | null = null;
  /** The run's finished contracts when the context was made: the first `length` of `list`. */
  #completedAt: { list: readonly ContractView[]; length: number } | null = null;
  #perform: NodeContext['perform'] | null = null;
  #act: NodeContext['act'] | null = null;
  #update: NodeContext['update'] | null = null;
  /** Unkeyed `act` calls so far: the key of the next one is `#<n>`. */
  #acts = 0;

  constructor(
    r: NodeRun,
    entry: FrontierEntry,
    spec: NodeSpec,
    type: NodeType<never>,
    attempt: number,
    notes: readonly CorrectiveNote[],
  ) {
    this.#r = r;
    this.#entry = entry;
    this.#spec = spec;
    this.#type = type;
    this.run_id = r.run.run_id;
    this.node_id = spec.id;
    this.node_type = spec.type;
    this.step = r.state.step + 1;
    this.attempt = attempt;
    this.config = (spec.config ?? null) as Json;
    this.state = r.state.channels;
    this.signal = r.signal;
    this.#corrective = notes.length === 0 ? null : [...notes];
    // Most runs hold no contract: nothing to copy. The finished ones (all of a long run's, which its
    // nodes seldom read) are copied on first read, not per step.
    if (r.contracts.byId.size > 0) {
      this.#pending = r.contracts.pendingNow();
      this.#completedAt = r.contracts.completedNow();
    }
  }

  get input_context(): InputContext {
    this.#input ??= inputContextOf(this.#r.graph, this.#r.state, this.#entry);
    return this.#input;
  }

  get corrective_context(): readonly CorrectiveNote[] {
    this.#corrective ??= [];
    return this.#corrective;
  }

  get pending_executions(): readonly ContractView[] {
    this.#pending ??= [];
    return this.#pending;
  }

  get completed_executions(): readonly ContractView[] {
    if (this.#completed === null) {
      const at = this.#completedAt;
      this.#completed = at === null || at.length === 0 ? [] : at.list.slice(0, at.length);
    }
    return this.#completed;
  }

  // The callbacks are closures (made once per context), so a node may call them detached.
  get perform(): NodeContext['perform'] {
    this.#perform ??= (id) => this.#r.contracts.perform(this.#spec.id, this.#type, id, this.#r.signal);
    return this.#perform;
  }

  get act(): NodeContext['act'] {
    this.#act ??= (action_type, payload, options) => {
      const contracts = this.#r.contracts;
      const key = options?.key ?? `#${this.#acts++}`;
      return contracts.act(
        this.#spec.id,
        this.#type,
        // Attempts count from 1, so 0 names an action shared by every attempt of the execution.
        contracts.actId(this.#spec.id, options?.acrossAttempts ? 0 : this.attempt, key),
        action_type,
        payload,
        this.#r.signal,
      );
    };
    return this.#act;
  }

  get update(): NodeContext['update'] {
    this.#update ??= (data) =>
      this.#r.events.progress({
        type: 'node.updated',
        run_id: this.run_id,
        node_id: this.node_id,
        step: this.step,
        data,
        at: this.#r.deps.now(),
      });
    return this.#update;
  }
}
