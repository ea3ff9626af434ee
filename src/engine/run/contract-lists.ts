/**
 * A run's contracts as its node contexts read them: by id, the unfinished ones, and the finished
 * ones in creation order — kept as contracts move, so a context takes the lists without filtering
 * every contract of the run.
 */
import { isFinal } from '../contracts/transitions.ts';
import type { ContractView } from '../engine.ts';

export class ContractLists {
  /** The run's contracts in creation order; written only through `put`. */
  readonly byId: ReadonlyMap<string, ContractView>;
  readonly #byId = new Map<string, ContractView>();
  /** The unfinished ones, in creation order (a few at a time). */
  readonly #pending = new Map<string, ContractView>();
  /**
   * The finished ones, in creation order. Grown in place only at its end, so a node context may
   * keep it with its length as its list (`completedNow`); any other change makes a new array.
   */
  #completed: ContractView[] = [];
  /** Creation rank of each contract, to place a finished one among the others. */
  readonly #rank = new Map<string, number>();

  constructor(contracts: readonly ContractView[]) {
    this.byId = this.#byId;
    for (const c of contracts) this.put(c);
  }

  all(): ContractView[] {
    return this.#byId.size === 0 ? [] : [...this.#byId.values()];
  }

  /** Records a contract's current view (a new contract, or a move of a known one). */
  put(c: ContractView): void {
    const id = c.contract_id;
    const old = this.#byId.get(id);
    this.#byId.set(id, c);
    if (!this.#rank.has(id)) this.#rank.set(id, this.#rank.size);
    if (!isFinal(c.status)) {
      this.#pending.set(id, c);
      return;
    }
    this.#pending.delete(id);
    const list = this.#completed;
    if (old && isFinal(old.status)) {
      // A finished contract seen again: replaced where it is, in a new array.
      this.#completed = list.map((x) => (x.contract_id === id ? c : x));
      return;
    }
    const rank = this.#rank.get(id)!;
    let at = list.length;
    while (at > 0 && this.#rank.get(list[at - 1]!.contract_id)! > rank) at--;
    if (at === list.length) list.push(c);
    else this.#completed = [...list.slice(0, at), c, ...list.slice(at)];
  }

  /** `pending_executions` now: the unfinished contracts in creation order. */
  pendingNow(): ContractView[] {
    return this.#pending.size === 0 ? [] : [...this.#pending.values()];
  }

  /**
   * `completed_executions` now, without copying it: the first `length` items of `list`, which later
   * changes leave as they are.
   */
  completedNow(): { list: readonly ContractView[]; length: number } {
    return { list: this.#completed, length: this.#completed.length };
  }
}
