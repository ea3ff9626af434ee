/** The node registry: runtimes register their node types; the engine itself knows none. */
import { NoemaError } from '../../core/errors.ts';
import { assertHumanId } from '../../core/ids.ts';
import { type NodeType, TERMINAL } from '../engine.ts';

export class NodeRegistry {
  readonly #types = new Map<string, NodeType<never>>();

  register(type: NodeType<never>): void {
    assertHumanId(type.type, 'type');
    if (type.type === TERMINAL) {
      throw new NoemaError('INVALID_INPUT', `"${TERMINAL}" is reserved for the engine's terminal node`);
    }
    if (this.#types.has(type.type)) {
      throw new NoemaError('CONFLICT', `node type "${type.type}" is already registered`, {
        hint: 'register each node type once per engine',
      });
    }
    if (typeof type.execute !== 'function')
      throw new NoemaError('INVALID_INPUT', `node type "${type.type}" has no execute()`);
    this.#types.set(type.type, type);
  }

  get(type: string): NodeType<never> | undefined {
    return this.#types.get(type);
  }

  /** Every type this registry can execute, `terminal` included. */
  types(): string[] {
    return [TERMINAL, ...this.#types.keys()];
  }

  has(type: string): boolean {
    return type === TERMINAL || this.#types.has(type);
  }
}
