/**
 * The catalog: the one registry of resource kinds. `registerKind` adds to the process-wide default
 * catalog that `noema serve` mounts; tests may build their own `Catalog`.
 */
import type { LinkRule, ResourceKind } from './kind.ts';

const KIND_NAME = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;

export class Catalog {
  readonly #kinds = new Map<string, ResourceKind>();

  register<R extends Record<string, unknown>>(kind: ResourceKind<R>): void {
    if (!KIND_NAME.test(kind.kind)) throw new Error(`catalog: kind name "${kind.kind}" must be kebab-case`);
    if (this.#kinds.has(kind.kind)) throw new Error(`catalog: kind "${kind.kind}" is already registered`);
    if (kind.list && !kind.cursorOf) throw new Error(`catalog: kind "${kind.kind}" lists without cursorOf`);
    this.#kinds.set(kind.kind, kind as unknown as ResourceKind);
  }

  get(name: string): ResourceKind | undefined {
    return this.#kinds.get(name);
  }

  all(): ResourceKind[] {
    return [...this.#kinds.values()];
  }

  /** The path of one record of `kind`, or null when the kind is not registered. */
  hrefOf(kind: string, key: string): string | null {
    const k = this.#kinds.get(kind);
    if (!k) return null;
    const seg = encodeURIComponent(key);
    return k.key.by === 'hash' ? `/${k.kind}/hash/${seg}` : `/${k.kind}/${seg}`;
  }

  /** Every (kind, rule) whose rule points at `target` and names a list filter: the `uses` of a hash. */
  referrersOf(target: string): Array<{ kind: ResourceKind; rule: LinkRule; filter: string }> {
    const out: Array<{ kind: ResourceKind; rule: LinkRule; filter: string }> = [];
    for (const kind of this.#kinds.values()) {
      if (!kind.list) continue;
      for (const rule of kind.links ?? []) {
        if (!('kind' in rule) || rule.kind !== target) continue;
        const filter = rule.filter ?? rule.field;
        if (kind.filters?.[filter]) out.push({ kind, rule, filter });
      }
    }
    return out;
  }
}

export const defaultCatalog = new Catalog();

/** Registers a resource kind in the catalog `noema serve` mounts (call it at module load). */
export function registerKind<R extends Record<string, unknown>>(kind: ResourceKind<R>): void {
  defaultCatalog.register(kind);
}
