/**
 * A model call's `model_output_kind`, judged as the call finishes so the kind is written with the
 * finished trace row (the sources executor's `outputKind`), not by a read and a transaction of its
 * own afterwards. A node registers its judge for the call it is about to make (keyed by run and
 * node: a node makes one model call at a time); the executor asks for it once per execution.
 */
import type { ActionContext, ExecutionContract } from '../../engine/index.ts';
import type { SourceCall } from '../../sources/index.ts';

export type OutputJudge = NonNullable<SourceCall['outputKind']>;

export class OutputJudges {
  readonly #pending = new Map<string, OutputJudge>();

  /** The sources executor's `outputKind` option. */
  readonly observer = (contract: ExecutionContract, ctx: ActionContext): OutputJudge | undefined =>
    contract.action_type === 'llm_generation' ? this.#pending.get(keyOf(ctx.run_id, ctx.node_id)) : undefined;

  /** Runs `call` with `judge` naming the kind of every generation it finishes. */
  async around<T>(run_id: string, node_id: string, judge: OutputJudge, call: () => Promise<T>): Promise<T> {
    const key = keyOf(run_id, node_id);
    this.#pending.set(key, judge);
    try {
      return await call();
    } finally {
      if (this.#pending.get(key) === judge) this.#pending.delete(key);
    }
  }
}

function keyOf(run_id: string, node_id: string): string {
  return `${run_id}\n${node_id}`;
}
